// Package settings reads a command's settings from its flags and their
// environment variables, from one table per command that also writes its
// --help and its README table, so the three cannot disagree.
package settings

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Spec is one setting: its flag ("" for a variable alone), its
// environment variable, its default and what it means. Bool settings may
// be given bare (--read-only).
type Spec struct {
	Flag, Env, Default, Help string
	Bool                     bool
	// Repeat lets the flag be given more than once: its values are
	// joined with ";", the separator its environment variable uses.
	Repeat bool
}

// Value is one setting's value and where it came from: "--flag", the
// environment variable, or "default".
type Value struct{ Value, Source string }

// placeholder matches an install-time variable a host left unsubstituted:
// MCPB hosts pass "${user_config.x}" through literally when the user left an
// optional field empty (modelcontextprotocol/mcpb#250).
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\{[^}]+\}$`) })

// Read parses args against the flags of specs, then gives each spec's
// value: its flag's if given, else its environment variable's, else its
// default. A variable holding an unfilled install placeholder counts as
// unset and is reported in ignored. showVersion receives --version; help
// names the --help to see in errors. --help itself is flag.ErrHelp.
func Read(specs []Spec, args []string, getenv func(string) string, showVersion *bool, help string) (vals []Value, ignored []string, err error) {
	fs := flag.NewFlagSet("obsidian-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	values := make([]*string, len(specs))
	for i, sp := range specs {
		switch {
		case sp.Flag == "":
		case sp.Bool:
			values[i] = new(string)
			fs.Var(boolFlag{values[i]}, sp.Flag, sp.Help)
		case sp.Repeat:
			values[i] = new(string)
			fs.Var(listFlag{values[i]}, sp.Flag, sp.Help)
		default:
			values[i] = fs.String(sp.Flag, "", sp.Help)
		}
	}
	fs.BoolVar(showVersion, "version", false, "print the version and exit")
	if err := fs.Parse(joinBoolValues(specs, args)); err != nil {
		if err == flag.ErrHelp {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%v (see %s)", err, help)
	}
	if fs.NArg() > 0 {
		return nil, nil, fmt.Errorf("unexpected argument %q (see %s)", fs.Arg(0), help)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for i, sp := range specs {
		v := Value{sp.Default, "default"}
		switch env := getenv(sp.Env); {
		case sp.Flag != "" && set[sp.Flag]:
			v = Value{*values[i], "--" + sp.Flag}
		case placeholder().MatchString(env):
			ignored = append(ignored, fmt.Sprintf("%s=%s (an unfilled install setting; treated as unset)", sp.Env, env))
		case env != "":
			v = Value{env, sp.Env}
		}
		vals = append(vals, v)
	}
	return vals, ignored, nil
}

// joinBoolValues writes a bool flag followed by a boolean word
// ("--read-only true", as the help's "true/false" invites) as one
// argument, --read-only=true: the flag package takes a bool flag's value
// only after "=", and stopped at "true" as an unexpected argument.
func joinBoolValues(specs []Spec, args []string) []string {
	isBool := map[string]bool{}
	for _, sp := range specs {
		if sp.Bool && sp.Flag != "" {
			isBool[sp.Flag] = true
		}
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if name != a && isBool[name] && i+1 < len(args) {
			if _, err := strconv.ParseBool(args[i+1]); err == nil {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// boolFlag is a string flag that may be given without a value, as true.
// listFlag joins the values of a flag given several times.
type listFlag struct{ v *string }

func (l listFlag) String() string {
	if l.v == nil {
		return ""
	}
	return *l.v
}

func (l listFlag) Set(v string) error {
	if *l.v != "" {
		v = *l.v + ";" + v
	}
	*l.v = v
	return nil
}

type boolFlag struct{ v *string }

func (b boolFlag) String() string {
	if b.v == nil {
		return ""
	}
	return *b.v
}

func (b boolFlag) Set(v string) error { *b.v = v; return nil }

func (b boolFlag) IsBoolFlag() bool { return true }

// WriteHelp writes the --help lines of specs, then --version and --help.
func WriteHelp(b *strings.Builder, specs []Spec) {
	for _, sp := range specs {
		def := ""
		if sp.Default != "" {
			def = " (default " + sp.Default + ")"
		}
		name := "--" + sp.Flag + " value"
		if sp.Flag == "" {
			name = "(environment only)"
		}
		fmt.Fprintf(b, "  %s   [%s]%s\n      %s\n", name, sp.Env, def, strings.ReplaceAll(sp.Help, "`", ""))
	}
	b.WriteString("  --version\n      Print the version and exit.\n  --help\n      Print this help and exit.\n")
}

// Table is the Markdown table of specs: flag, variable, default, meaning.
func Table(specs []Spec) string {
	var b strings.Builder
	b.WriteString("| flag | environment variable | default | meaning |\n|---|---|---|---|\n")
	for _, sp := range specs {
		flag, def := "—", "—"
		if sp.Flag != "" {
			flag = "`--" + sp.Flag + "`"
		}
		if sp.Default != "" {
			def = "`" + sp.Default + "`"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", flag, sp.Env, def, sp.Help)
	}
	return b.String()
}

// Duration reads a positive Go duration, or a bare number of seconds (what
// an MCPB number field delivers).
func Duration(v string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0, fmt.Errorf("must be a positive Go duration such as 30s or 2m, or a number of seconds")
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("must be a positive Go duration such as 30s or 2m, or a number of seconds")
	}
	return d, nil
}

// LogLevel reads debug, info, warn (or warning) or error.
func LogLevel(v string) (slog.Level, error) {
	switch strings.ToLower(v) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("must be one of debug, info, warn, error")
}

// Setting is where one setting's effective value came from, for doctor.
type Setting struct {
	Flag, Env string
	Value     string // as given or the default; secrets shown as (set)
	Source    string // "--flag", the environment variable, or "default"
}

// InConfigDir is given, when set, or name in obsidian-mcp's folder of the
// user's configuration directory: where the OAuth store and the ACME
// cache live unless a setting says otherwise. what and flag word the
// error when there is no such directory.
func InConfigDir(given, name, what, flag string) (string, error) {
	if given != "" {
		return given, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration folder for %s (%v): give one with %s", what, err, flag)
	}
	return filepath.Join(dir, "obsidian-mcp", name), nil
}
