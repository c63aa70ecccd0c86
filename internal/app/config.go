package app

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

// Config is the server's configuration. Each setting comes from a flag or
// its environment variable; a flag wins.
type Config struct {
	Backend         backend.Mode
	VaultPath       string
	ObsidianBin     string
	Vault           string
	Timeout         time.Duration
	CommandTimeouts map[string]time.Duration
	LogLevel        slog.Level
	ToolErrors      string // "protocol" or "result"
	// ReadOnly serves only the tools that change nothing.
	ReadOnly bool
	// Policy is the folder policy of --read-paths, --write-paths and
	// --deny-paths; the vault's .mcpignore adds to it.
	Policy *policy.Policy
	// from names the setting being parsed ("--deny-paths" or its
	// environment variable), so that a policy refusal names what the user
	// wrote.
	from        string
	ShowVersion bool
	// HTTP is the configuration of `obsidian-mcp serve`.
	HTTP HTTPConfig
	// Settings says where each option's value came from, in option order.
	Settings []Setting
	// Ignored lists environment variables holding unsubstituted placeholders.
	Ignored []string
	// Recheck is how long auto mode serves from the folder after the app
	// failed to answer before trying the app again (not a flag).
	Recheck time.Duration
}

// HTTPConfig is how `obsidian-mcp serve` listens and whom it answers.
type HTTPConfig struct {
	// Listen is the address: host:port.
	Listen string
	// APIKey, when set, is required on every request.
	APIKey string
	// AllowedHosts are the Host names accepted besides the loopback ones.
	AllowedHosts []string
	// CORSOrigins are the browser origins allowed besides loopback ones;
	// "*" allows any.
	CORSOrigins []string
	// URLFile, when set, receives the server's URL once it listens, for
	// `obsidian-mcp bridge --url-file` to find it on whatever port.
	URLFile string
}

// defaultRecheck spares a CLI round trip per call while the app is closed.
const defaultRecheck = 5 * time.Second

// Tool error modes.
const (
	ToolErrorsProtocol = "protocol"
	ToolErrorsResult   = "result"
)

// option is one setting. The table drives parsing, --help and the README.
type option struct {
	flag, env, def, help string
	set                  func(c *Config, v string) error
}

// serveOnly are the settings of `obsidian-mcp serve` alone, by variable.
var serveOnly = map[string]bool{
	"OBSIDIAN_MCP_LISTEN": true, "OBSIDIAN_MCP_API_KEY_FILE": true, "OBSIDIAN_MCP_API_KEY": true,
	"OBSIDIAN_MCP_ALLOWED_HOSTS": true, "OBSIDIAN_MCP_CORS_ORIGINS": true, "OBSIDIAN_MCP_URL_FILE": true,
}

// secrets are never shown (doctor, logs). A secret has no flag: a command
// line is visible to every user of the machine.
var secrets = map[string]bool{"OBSIDIAN_MCP_API_KEY": true}

// name is how errors and sources call the option.
func (o option) name() string {
	if o.flag == "" {
		return o.env
	}
	return "--" + o.flag
}

// booleans are the options that may be given bare: --read-only.
var booleans = map[string]bool{"read-only": true}

// boolFlag is a string flag that may be given without a value, as true.
type boolFlag struct{ v *string }

func (b boolFlag) String() string {
	if b.v == nil {
		return ""
	}
	return *b.v
}
func (b boolFlag) Set(v string) error { *b.v = v; return nil }
func (b boolFlag) IsBoolFlag() bool   { return true }

func options() []option {
	return []option{
		{"backend", "OBSIDIAN_MCP_BACKEND", string(backend.Auto), "Which backend serves the tools: `auto` uses the Obsidian app through its CLI while it answers, and the vault folder directly when the app is closed or not installed (if the folder is known: `--vault-path`, or learned from the app); `cli` only the app; `native` only the folder (needs `--vault-path`; works without Obsidian).",
			func(c *Config, v string) error {
				switch m := backend.Mode(strings.ToLower(strings.TrimSpace(v))); m {
				case backend.Auto, backend.CLI, backend.Native:
					c.Backend = m
					return nil
				}
				return fmt.Errorf("must be auto, cli or native")
			}},
		{"vault-path", "OBSIDIAN_VAULT_PATH", "", "The vault's folder (the one holding `.obsidian/`), for the native backend. A leading `~/` means your home folder.",
			func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				if strings.ContainsAny(v, "\x00\n\r") {
					return fmt.Errorf("must be a folder path on one line")
				}
				if rest, ok := strings.CutPrefix(v, "~/"); ok {
					home, err := os.UserHomeDir()
					if err != nil {
						return fmt.Errorf("cannot expand ~: %v", err)
					}
					v = filepath.Join(home, rest)
				}
				abs, err := filepath.Abs(v)
				if err != nil {
					return err
				}
				if !isDir(abs) {
					return fmt.Errorf("is not an existing folder")
				}
				c.VaultPath = abs
				return nil
			}},
		{"obsidian-bin", "OBSIDIAN_BIN", "", "Path of the Obsidian CLI. By default `obsidian` (on Windows `Obsidian.com`, never `Obsidian.exe`) is looked up on PATH, then where Obsidian installs it: macOS `/usr/local/bin/obsidian` and `Obsidian.app/Contents/MacOS/obsidian-cli`; Linux `~/.local/bin/obsidian`; Windows `%LOCALAPPDATA%\\Programs\\Obsidian` and `Program Files\\Obsidian`. `obsidian-mcp doctor` shows what was found.",
			func(c *Config, v string) error { c.ObsidianBin = v; return nil }},
		{"vault", "OBSIDIAN_VAULT", "", "Vault name as Obsidian lists it. When set, every CLI call starts with `vault=<name>`; otherwise the CLI uses the active vault.",
			func(c *Config, v string) error {
				if strings.ContainsAny(v, "\x00\n\r") {
					return fmt.Errorf("must be a vault name on one line")
				}
				c.Vault = v
				return nil
			}},
		{"timeout", "OBSIDIAN_MCP_TIMEOUT", "30s", "Timeout of each CLI call, as a Go duration (`30s`, `2m`) or a number of seconds. On expiry the CLI's whole process group is stopped and the call fails with TIMEOUT.",
			func(c *Config, v string) error {
				d, err := positiveDuration(v)
				c.Timeout = d
				return err
			}},
		{"command-timeouts", "OBSIDIAN_MCP_COMMAND_TIMEOUTS", "", "Per-command timeout overrides, e.g. `move=2m,rename=2m` for vaults where link updates are slow.",
			func(c *Config, v string) error {
				c.CommandTimeouts = map[string]time.Duration{}
				for _, pair := range strings.Split(v, ",") {
					if pair = strings.TrimSpace(pair); pair == "" {
						continue
					}
					cmd, val, ok := strings.Cut(pair, "=")
					if !ok || strings.TrimSpace(cmd) == "" {
						return fmt.Errorf("%q is not command=duration (e.g. move=2m)", pair)
					}
					d, err := positiveDuration(strings.TrimSpace(val))
					if err != nil {
						return fmt.Errorf("%s: %w", cmd, err)
					}
					c.CommandTimeouts[strings.TrimSpace(cmd)] = d
				}
				return nil
			}},
		{"log-level", "OBSIDIAN_MCP_LOG_LEVEL", "info", "Log level: `debug`, `info`, `warn` or `error`. Logs go to stderr only (coloured on a terminal); debug adds every CLI invocation (note bodies redacted).",
			func(c *Config, v string) error {
				switch strings.ToLower(v) {
				case "debug":
					c.LogLevel = slog.LevelDebug
				case "info":
					c.LogLevel = slog.LevelInfo
				case "warn", "warning":
					c.LogLevel = slog.LevelWarn
				case "error":
					c.LogLevel = slog.LevelError
				default:
					return fmt.Errorf("must be one of debug, info, warn, error")
				}
				return nil
			}},
		{"read-only", "OBSIDIAN_MCP_READ_ONLY", "false", "Serve only the tools that change nothing: the write tools are left out of tools/list, and a call to one is refused with PERMISSION_DENIED naming this setting. `--read-only`, or `true`/`false`.",
			func(c *Config, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.ReadOnly = b
				return nil
			}},
		pathsOption("read-paths", "OBSIDIAN_MCP_READ_PATHS", "Comma-separated globs of the only notes the server may see, e.g. `Projects/**,Inbox/**` (`*` within a name, `**` across folders, `{a,b}`, `[a-z]`; vault-relative; a folder covers everything in it; letter case ignored). Every other note is hidden: left out of search, listings, tags, properties, links and resources, and refused by path with PERMISSION_DENIED naming the rule. Default: the whole vault.",
			func(p *policy.Policy, r []policy.Rule) { p.Read = r }),
		pathsOption("write-paths", "OBSIDIAN_MCP_WRITE_PATHS", "Comma-separated globs of the only notes the server may create, change, move or delete, e.g. `Inbox/**,Daily/**`; other notes stay readable. A write elsewhere is refused with PERMISSION_DENIED naming the rule. Default: every note it may see.",
			func(p *policy.Policy, r []policy.Rule) { p.Write = r }),
		pathsOption("deny-paths", "OBSIDIAN_MCP_DENY_PATHS", "Comma-separated globs of notes hidden from the server, e.g. `Private/**,*.secret.md`: never read or changed, and left out of every answer as if they did not exist. A `.mcpignore` file in the vault folder (.gitignore syntax, read again when it changes) hides more.",
			func(p *policy.Policy, r []policy.Rule) { p.Deny = r }),
		{flag: "listen", env: "OBSIDIAN_MCP_LISTEN", def: "127.0.0.1:3000",
			help: "`serve`: the address to listen on, host:port. Only loopback (127.0.0.1, ::1, localhost) unless an API key is set.",
			set: func(c *Config, v string) error {
				host, port, err := net.SplitHostPort(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be host:port, e.g. 127.0.0.1:3000")
				}
				if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
					return fmt.Errorf("the port must be a number from 0 to 65535")
				}
				c.HTTP.Listen = net.JoinHostPort(host, port)
				return nil
			}},
		{flag: "api-key-file", env: "OBSIDIAN_MCP_API_KEY_FILE",
			help: "`serve`: a file holding the API key (its first line). With a key, every request must carry it as `Authorization: Bearer <key>`, `X-Api-Key` or `X-ObsiScripta-Api-Key`, and the server may listen beyond loopback.",
			set: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				data, err := os.ReadFile(v)
				if err != nil {
					return fmt.Errorf("cannot be read: %v", err)
				}
				key, _, _ := strings.Cut(string(data), "\n")
				return c.setAPIKey(strings.TrimSpace(key))
			}},
		{env: "OBSIDIAN_MCP_API_KEY",
			help: "`serve`: the API key itself, as an environment variable (never a flag: a command line is visible to every user of the machine). `--api-key-file` wins.",
			set: func(c *Config, v string) error {
				if c.HTTP.APIKey != "" || v == "" {
					return nil
				}
				return c.setAPIKey(strings.TrimSpace(v))
			}},
		{flag: "allowed-hosts", env: "OBSIDIAN_MCP_ALLOWED_HOSTS",
			help: "`serve`: comma-separated host names accepted in the `Host` header besides localhost, 127.0.0.1 and ::1 (DNS-rebinding protection), e.g. `notes.lan`.",
			set: func(c *Config, v string) error {
				c.HTTP.AllowedHosts = nil
				for _, h := range strings.Split(v, ",") {
					if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
						if strings.ContainsAny(h, "/ ") {
							return fmt.Errorf("%q is not a host name", h)
						}
						c.HTTP.AllowedHosts = append(c.HTTP.AllowedHosts, h)
					}
				}
				return nil
			}},
		{flag: "cors-origin", env: "OBSIDIAN_MCP_CORS_ORIGINS",
			help: "`serve`: comma-separated browser origins allowed to call the server besides loopback ones (`http://localhost:8080`), e.g. `https://chat.example`; a request from any other `Origin` is refused. `*` allows every origin, as the Bridge Protocol v1 contract does: any web page you visit could then use your notes, so use it only with an API key.",
			set: func(c *Config, v string) error {
				c.HTTP.CORSOrigins = nil
				for _, o := range strings.Split(v, ",") {
					if o = strings.TrimSpace(o); o == "" {
						continue
					}
					if o != "*" {
						u, err := url.Parse(o)
						if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" && u.Path != "/" {
							return fmt.Errorf("%q is not an origin (scheme://host[:port])", o)
						}
						o = strings.ToLower(u.Scheme + "://" + u.Host)
					}
					c.HTTP.CORSOrigins = append(c.HTTP.CORSOrigins, o)
				}
				return nil
			}},
		{flag: "url-file", env: "OBSIDIAN_MCP_URL_FILE",
			help: "`serve`: a file to write the server's URL to once it listens (removed when it stops), so that `obsidian-mcp bridge --url-file` finds it again after a restart on another port (`--listen 127.0.0.1:0` picks a free one).",
			set: func(c *Config, v string) error {
				if v = strings.TrimSpace(v); v != "" && strings.ContainsAny(v, "\x00\n\r") {
					return fmt.Errorf("must be a file path on one line")
				}
				c.HTTP.URLFile = strings.TrimSpace(v)
				return nil
			}},
		{"tool-errors", "OBSIDIAN_MCP_TOOL_ERRORS", ToolErrorsProtocol, "How failed tool calls are answered: `protocol` (JSON-RPC error objects with our code and `data`) or `result` (`isError` results carrying the same fields, for clients that show the model only results).",
			func(c *Config, v string) error {
				if v != ToolErrorsProtocol && v != ToolErrorsResult {
					return fmt.Errorf("must be %q or %q", ToolErrorsProtocol, ToolErrorsResult)
				}
				c.ToolErrors = v
				return nil
			}},
	}
}

// pathsOption is a folder policy option: a list of globs that set puts
// in the policy. The rules carry the name of the setting that gave them.
func pathsOption(flag, env, help string, set func(*policy.Policy, []policy.Rule)) option {
	return option{flag, env, "", help, func(c *Config, v string) error {
		rules, err := policy.ParseList(c.from, v)
		set(c.policy(), rules)
		return err
	}}
}

// setAPIKey checks and sets the API key.
func (c *Config) setAPIKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("holds no key")
	case len(key) < 16:
		return fmt.Errorf("the key is too short: use at least 16 characters (e.g. openssl rand -hex 32)")
	case strings.ContainsAny(key, " \t\r\n"):
		return fmt.Errorf("the key must not contain white space")
	}
	c.HTTP.APIKey = key
	return nil
}

// policy is the configuration's folder policy, made on first use.
func (c *Config) policy() *policy.Policy {
	if c.Policy == nil {
		c.Policy = &policy.Policy{}
	}
	return c.Policy
}

// positiveDuration reads a Go duration, or a bare number of seconds (what an
// MCPB number field delivers).
func positiveDuration(v string) (time.Duration, error) {
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

// Setting is where one option's effective value came from, for doctor.
type Setting struct {
	Flag, Env string
	Value     string // as given or the default; the vault folder made absolute
	Source    string // "--flag", the environment variable, or "default"
}

// placeholder matches an install-time variable a host left unsubstituted:
// MCPB hosts pass "${user_config.x}" through literally when the user left an
// optional field empty (modelcontextprotocol/mcpb#250).
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\{[^}]+\}$`) })

// ParseConfig reads the stdio server's flags from args and, for flags not
// given, environment variables through getenv. It returns flag.ErrHelp for
// --help. Every invalid setting is reported, joined, with the best
// configuration it could make of the rest.
func ParseConfig(args []string, getenv func(string) string) (Config, error) {
	return parseConfig(args, getenv, false)
}

// ParseServeConfig is ParseConfig for `obsidian-mcp serve`, with the HTTP
// settings.
func ParseServeConfig(args []string, getenv func(string) string) (Config, error) {
	return parseConfig(args, getenv, true)
}

// commandOptions are the options of the stdio server, or of serve.
func commandOptions(serve bool) []option {
	var opts []option
	for _, o := range options() {
		if !serveOnly[o.env] || serve {
			opts = append(opts, o)
		}
	}
	return opts
}

// row is an option as readSettings and the docs take it.
func (o option) row() [4]string { return [4]string{o.flag, o.env, o.def, o.help} }

// rowsOf are the rows of options of either command.
func rowsOf[O interface{ row() [4]string }](opts []O) [][4]string {
	rows := make([][4]string, len(opts))
	for i, o := range opts {
		rows[i] = o.row()
	}
	return rows
}

// given is one setting's value and where it came from: "--flag", the
// environment variable, or "default".
type given struct{ value, source string }

// readSettings parses args against the flags of specs (flag, variable,
// default, meaning), then gives each spec's value: its flag's if given,
// else its environment variable's, else its default. A variable holding an
// unfilled install placeholder counts as unset and is reported in ignored.
// help names the --help to see in errors.
func readSettings(specs [][4]string, args []string, getenv func(string) string, showVersion *bool, help string) (vals []given, ignored []string, err error) {
	fs := flag.NewFlagSet("obsidian-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	values := make([]*string, len(specs))
	for i, sp := range specs {
		switch {
		case sp[0] == "":
		case booleans[sp[0]]:
			values[i] = new(string)
			fs.Var(boolFlag{values[i]}, sp[0], sp[3])
		default:
			values[i] = fs.String(sp[0], "", sp[3])
		}
	}
	fs.BoolVar(showVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
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
		g := given{sp[2], "default"}
		switch env := getenv(sp[1]); {
		case sp[0] != "" && set[sp[0]]:
			g = given{*values[i], "--" + sp[0]}
		case placeholder().MatchString(env):
			ignored = append(ignored, fmt.Sprintf("%s=%s (an unfilled install setting; treated as unset)", sp[1], env))
		case env != "":
			g = given{env, sp[1]}
		}
		vals = append(vals, g)
	}
	return vals, ignored, nil
}

func parseConfig(args []string, getenv func(string) string, serve bool) (Config, error) {
	c := Config{Recheck: defaultRecheck}
	opts := commandOptions(serve)
	vals, ignored, err := readSettings(rowsOf(opts), args, getenv, &c.ShowVersion, "--help")
	if err != nil {
		return c, err
	}
	c.Ignored = ignored
	var errs []error
	for i, o := range opts {
		v, source := vals[i].value, vals[i].source
		c.from = source
		if source == "default" {
			c.from = o.name()
		}
		shown := v
		if secrets[o.env] && v != "" {
			shown = "(set)"
		}
		if err := o.set(&c, v); err != nil {
			what := source
			if source == "default" {
				what = "default of " + o.name()
			}
			errs = append(errs, fmt.Errorf("invalid %s %q: %v", what, shown, err))
		} else if o.flag == "vault-path" {
			shown = c.VaultPath // absolute, ~ expanded: what the server uses
		}
		c.Settings = append(c.Settings, Setting{Flag: o.flag, Env: o.env, Value: shown, Source: source})
	}
	c.from = ""
	if serve && c.HTTP.Listen != "" && !loopbackHost(c.HTTP.Listen) && c.HTTP.APIKey == "" {
		errs = append(errs, fmt.Errorf("--listen %s reaches beyond this machine, and no API key is set: anyone on the network could read and change your notes. Set OBSIDIAN_MCP_API_KEY or --api-key-file, or listen on 127.0.0.1", c.HTTP.Listen))
	}
	// A folder that was given but is invalid has been reported already.
	if c.Backend == backend.Native && c.setting("vault-path").Value == "" {
		errs = append(errs, fmt.Errorf("--backend native needs the vault folder: set --vault-path or OBSIDIAN_VAULT_PATH (see --help)"))
	}
	return c, errors.Join(errs...)
}

// setting returns the Setting of the option named flag.
func (c Config) setting(flag string) Setting {
	for _, s := range c.Settings {
		if s.Flag == flag {
			return s
		}
	}
	return Setting{Flag: flag, Source: "default"}
}

// loopbackHost reports whether host:port listens on this machine only.
func loopbackHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Usage is the --help text.
func Usage() string {
	var b strings.Builder
	b.WriteString(`obsidian-mcp: a Model Context Protocol server for Obsidian vaults, over stdio.

It speaks newline-delimited JSON-RPC 2.0 on stdin/stdout. It drives the official
Obsidian CLI (Obsidian 1.12 or later, with Settings → General → Command line
interface enabled) and, when the app is closed or absent, works on the vault
folder directly (--vault-path). Logs go to stderr.

Usage:
  obsidian-mcp [flags]          serve MCP over stdio
  obsidian-mcp serve [flags]    the same tools over HTTP: MCP at /mcp, the Bridge Protocol v1
                                at /bridge/v1, the envelope API at /v1/mcp
  obsidian-mcp bridge [flags]   serve over stdio the tools of an HTTP server (obsidian-mcp serve,
                                the ObsiScripta Bridge plugin); see obsidian-mcp bridge --help
  obsidian-mcp doctor [flags]   check the setup and say how to fix it

Flags (each may also be set by its environment variable; a flag wins):
`)
	rows := rowsOf(options())
	writeFlagHelp(&b, rows)
	return b.String()
}

// writeFlagHelp writes --help lines for settings (flag, variable,
// default, meaning), then --version and --help.
func writeFlagHelp(b *strings.Builder, rows [][4]string) {
	for _, r := range rows {
		def := ""
		if r[2] != "" {
			def = " (default " + r[2] + ")"
		}
		name := "--" + r[0] + " value"
		if r[0] == "" {
			name = "(environment only)"
		}
		fmt.Fprintf(b, "  %s   [%s]%s\n      %s\n", name, r[1], def, strings.ReplaceAll(r[3], "`", ""))
	}
	b.WriteString("  --version\n      Print the version and exit.\n  --help\n      Print this help and exit.\n")
}
