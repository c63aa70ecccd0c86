package settings

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	specs := []Spec{
		{Flag: "timeout", Env: "T", Default: "30s"},
		{Flag: "vault", Env: "V"},
		{Flag: "read-only", Env: "R", Default: "false", Bool: true},
		{Env: "ONLY_ENV", Default: "x"},
	}
	env := map[string]string{"T": "10s", "V": "${user_config.vault}", "ONLY_ENV": "y"}
	var version bool
	vals, ignored, err := Read(specs, []string{"--timeout", "5s", "--read-only"}, func(k string) string { return env[k] }, &version, "--help")
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{{"5s", "--timeout"}, {"", "default"}, {"true", "--read-only"}, {"y", "ONLY_ENV"}}
	for i, v := range vals {
		if v != want[i] {
			t.Errorf("%s: %+v, want %+v (a flag wins, then the variable, then the default)", specs[i].Env, v, want[i])
		}
	}
	if len(ignored) != 1 || !strings.Contains(ignored[0], "V=${user_config.vault}") {
		t.Errorf("ignored %q, want the unfilled install placeholder", ignored)
	}
	if _, _, err := Read(specs, []string{"--help"}, func(string) string { return "" }, &version, "--help"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
	if _, _, err := Read(specs, []string{"stray"}, func(string) string { return "" }, &version, "obsidian-mcp --help"); err == nil || !strings.Contains(err.Error(), `unexpected argument "stray" (see obsidian-mcp --help)`) {
		t.Errorf("a stray argument: %v", err)
	}
	var b strings.Builder
	WriteHelp(&b, specs[:1])
	if got := b.String(); !strings.Contains(got, "--timeout value   [T] (default 30s)") || !strings.Contains(got, "--version") {
		t.Errorf("help:\n%s", got)
	}
}

// TestBoolFlagSpellings: a bool flag is true bare, and takes true or false
// after "=" or after a space alike; a word that is no boolean after it is
// still an argument of its own.
func TestBoolFlagSpellings(t *testing.T) {
	specs := []Spec{{Flag: "read-only", Env: "R", Default: "false", Bool: true}, {Flag: "vault", Env: "V"}}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--read-only"}, "true"},
		{[]string{"--read-only=false"}, "false"},
		{[]string{"--read-only", "true"}, "true"},
		{[]string{"--read-only", "false", "--vault", "v"}, "false"},
		{[]string{"-read-only", "0"}, "0"},
	} {
		var version bool
		vals, _, err := Read(specs, c.args, func(string) string { return "" }, &version, "--help")
		if err != nil || vals[0].Value != c.want {
			t.Errorf("%q: %+v, %v; want %s", c.args, vals, err, c.want)
		}
	}
	var version bool
	if _, _, err := Read(specs, []string{"--read-only", "maybe"}, func(string) string { return "" }, &version, "--help"); err == nil || !strings.Contains(err.Error(), `unexpected argument "maybe"`) {
		t.Errorf("a word that is no boolean: %v", err)
	}
}
