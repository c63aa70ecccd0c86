package settings

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Row is one setting of a command whose configuration is C: how it is
// given (its flag, its environment variable), its default and meaning,
// and how its value goes into C. A command's rows drive its parsing, its
// --help and its README table.
type Row[C any] struct {
	Flag, Env, Default, Help string
	// Bool settings may be given bare (--read-only).
	Bool bool
	// Repeat lets the flag be given more than once (see Spec).
	Repeat bool
	// Secret settings are never shown (doctor, logs, errors); a secret
	// has no flag, since a command line is visible to every user.
	Secret bool
	// Set puts v into c, or says why v is no valid value (a Warning: v
	// was replaced by the default, and the command goes on).
	Set func(c *C, v string) error
	// SetFrom, when set, is used instead of Set, with the name of where
	// v came from ("--deny-paths", a variable, a YAML key), for values
	// that carry it.
	SetFrom func(c *C, v, from string) error
	// Shown, when set, is the value as the command uses it, for doctor
	// (an absolute path where a relative one was given).
	Shown func(c *C) string
}

// Warning is what a Row's Set returns for a value it replaced by its
// default: reported, but no error.
type Warning string

func (w Warning) Error() string { return string(w) }

// Name is how errors call the row by default: its flag, or its variable.
func (r Row[C]) Name() string {
	if r.Flag == "" {
		return r.Env
	}
	return "--" + r.Flag
}

// Spec is the row as Read and the docs take it.
func (r Row[C]) Spec() Spec {
	return Spec{Flag: r.Flag, Env: r.Env, Default: r.Default, Help: r.Help, Bool: r.Bool, Repeat: r.Repeat}
}

// Specs are the rows' specs.
func Specs[C any](rows []Row[C]) []Spec {
	out := make([]Spec, len(rows))
	for i, r := range rows {
		out[i] = r.Spec()
	}
	return out
}

// Lift makes rows of a part A of a configuration C rows of C: a command
// made of another's settings and its own (serve: the server's and HTTP's).
func Lift[C, A any](rows []Row[A], part func(*C) *A) []Row[C] {
	out := make([]Row[C], len(rows))
	for i, r := range rows {
		out[i] = Row[C]{Flag: r.Flag, Env: r.Env, Default: r.Default, Help: r.Help, Bool: r.Bool, Repeat: r.Repeat, Secret: r.Secret}
		if r.Set != nil {
			set := r.Set
			out[i].Set = func(c *C, v string) error { return set(part(c), v) }
		}
		if r.SetFrom != nil {
			set := r.SetFrom
			out[i].SetFrom = func(c *C, v, from string) error { return set(part(c), v, from) }
		}
		if r.Shown != nil {
			shown := r.Shown
			out[i].Shown = func(c *C) string { return shown(part(c)) }
		}
	}
	return out
}

// Apply puts each row's value into c (vals[i] is row i's, as Read or
// Given make them). Every invalid value is reported, joined, naming where
// it came from; a Warning is kept in warnings instead. set says, per row,
// what the command uses and where it came from, secrets shown as (set).
func Apply[C any](rows []Row[C], vals []Value, c *C) (set []Setting, warnings []string, err error) {
	var errs []error
	for i, r := range rows {
		v, source := vals[i].Value, vals[i].Source
		from := source
		if source == "default" {
			from = r.Name()
		}
		shown := v
		if r.Secret && v != "" {
			shown = "(set)"
		}
		var e error
		if r.SetFrom != nil {
			e = r.SetFrom(c, v, from)
		} else {
			e = r.Set(c, v)
		}
		var w Warning
		switch {
		case errors.As(e, &w):
			warnings = append(warnings, source+": "+string(w))
		case e != nil:
			what := source
			if source == "default" {
				what = "default of " + r.Name()
			}
			if r.Secret {
				errs = append(errs, fmt.Errorf("invalid %s: %v", what, e)) // never shown, not even as (set)
			} else {
				errs = append(errs, fmt.Errorf("invalid %s %s: %v", what, quoted(shown), e))
			}
		case r.Shown != nil && v != "":
			shown = r.Shown(c)
		}
		set = append(set, Setting{Flag: r.Flag, Env: r.Env, Value: shown, Source: source})
	}
	return set, warnings, errors.Join(errs...)
}

// Given are the rows' values from a source other than the command line:
// given[flag], named by key(flag) in errors, else the environment
// variable through getenv, else the default. The gateway builds a vault
// namespace's settings so, from its YAML keys.
func Given[C any](rows []Row[C], given map[string]string, key func(flag string) string, getenv func(string) string) []Value {
	out := make([]Value, len(rows))
	for i, r := range rows {
		v, ok := given[r.Flag]
		switch env := getenv(r.Env); {
		case ok && r.Flag != "":
			out[i] = Value{v, key(r.Flag)}
		case env != "":
			out[i] = Value{env, r.Env}
		default:
			out[i] = Value{r.Default, "default"}
		}
	}
	return out
}

// Parsed is what Parse made of a command line besides the configuration.
type Parsed struct {
	// Ignored are variables holding unfilled install placeholders.
	Ignored []string
	// Settings say where each value came from, for doctor.
	Settings []Setting
	// Warnings are values replaced by their default.
	Warnings []string
}

// Parse reads rows' values from args and getenv (Read) and puts them into
// c (Apply). The error is Read's (flag.ErrHelp for --help) or every
// invalid value's, joined.
func Parse[C any](rows []Row[C], c *C, args []string, getenv func(string) string, showVersion *bool, help string) (Parsed, error) {
	vals, ignored, err := Read(Specs(rows), args, getenv, showVersion, help)
	if err != nil {
		return Parsed{}, err
	}
	set, warnings, err := Apply(rows, vals, c)
	return Parsed{Ignored: ignored, Settings: set, Warnings: warnings}, err
}

// quoted puts v in double quotes as it was typed: a Windows path keeps
// single backslashes (%q would show C:\\Users); a value with quotes or
// control characters is quoted with escapes, so that it reads unambiguously.
func quoted(v string) string {
	if strings.ContainsRune(v, '"') || strings.ContainsFunc(v, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(v)
	}
	return `"` + v + `"`
}
