package vaultserver

import (
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	c, err := ParseConfig(nil, env())
	if err != nil || c.Timeout != 30*time.Second || c.LogLevel != slog.LevelInfo || c.ToolErrors != "protocol" || c.ObsidianBin != "" || c.Vault != "" {
		t.Fatalf("defaults = %+v, %v", c, err)
	}
	c, err = ParseConfig(nil, env("OBSIDIAN_BIN", "/opt/obsidian", "OBSIDIAN_VAULT", "Work", "OBSIDIAN_MCP_TIMEOUT", "5s",
		"OBSIDIAN_MCP_LOG_LEVEL", "debug", "OBSIDIAN_MCP_TOOL_ERRORS", "result", "OBSIDIAN_MCP_COMMAND_TIMEOUTS", "move=2m, rename=90s"))
	if err != nil || c.ObsidianBin != "/opt/obsidian" || c.Vault != "Work" || c.Timeout != 5*time.Second || c.LogLevel != slog.LevelDebug ||
		c.ToolErrors != "result" || c.CommandTimeouts["move"] != 2*time.Minute || c.CommandTimeouts["rename"] != 90*time.Second {
		t.Fatalf("from env = %+v, %v", c, err)
	}
	c, err = ParseConfig([]string{"--vault", "Flag", "-timeout=1m", "--log-level=WARN"}, env("OBSIDIAN_VAULT", "Env", "OBSIDIAN_MCP_TIMEOUT", "5s"))
	if err != nil || c.Vault != "Flag" || c.Timeout != time.Minute || c.LogLevel != slog.LevelWarn {
		t.Fatalf("flags must win: %+v, %v", c, err)
	}
	if c.Backend != "auto" || c.VaultPath != "" {
		t.Errorf("backend defaults = %q %q", c.Backend, c.VaultPath)
	}
	dir := t.TempDir()
	c, err = ParseConfig([]string{"--backend", "NATIVE"}, env("OBSIDIAN_VAULT_PATH", dir))
	if err != nil || c.Backend != "native" || c.VaultPath != dir {
		t.Errorf("native with a folder = %+v, %v", c, err)
	}
	home, _ := os.UserHomeDir()
	if c, err := ParseConfig([]string{"--vault-path", "~/"}, env()); home != "" && (err != nil || c.VaultPath != filepath.Clean(home)) {
		t.Errorf("~ expansion = %q, %v", c.VaultPath, err)
	}
	// --read-only: bare, with a value, or from the environment (MCPB's
	// boolean arrives as "true"/"false"); off by default.
	for _, tc := range []struct {
		args []string
		env  []string
		want bool
	}{
		{nil, nil, false},
		{[]string{"--read-only"}, nil, true},
		{[]string{"--read-only=false"}, []string{"OBSIDIAN_MCP_READ_ONLY", "true"}, false},
		{nil, []string{"OBSIDIAN_MCP_READ_ONLY", "true"}, true},
		{nil, []string{"OBSIDIAN_MCP_READ_ONLY", "${user_config.read_only}"}, false},
	} {
		if c, err := ParseConfig(tc.args, env(tc.env...)); err != nil || c.ReadOnly != tc.want {
			t.Errorf("read-only %v %v = %v, %v; want %v", tc.args, tc.env, c.ReadOnly, err, tc.want)
		}
	}
	if _, err := ParseConfig(nil, env("OBSIDIAN_MCP_READ_ONLY", "maybe")); err == nil || !strings.Contains(err.Error(), "must be true or false") {
		t.Errorf("read-only maybe: %v", err)
	}
	if _, err := ParseConfig([]string{"--help"}, env()); err != flag.ErrHelp {
		t.Errorf("--help: %v", err)
	}
	if c, err := ParseConfig([]string{"--version"}, env()); err != nil || !c.ShowVersion {
		t.Errorf("--version: %+v %v", c, err)
	}
	bad := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"--timeout", "abc"}, nil, `invalid --timeout "abc"`},
		{nil, []string{"OBSIDIAN_MCP_TIMEOUT", "0s"}, `invalid OBSIDIAN_MCP_TIMEOUT "0s": must be a positive`},
		{[]string{"--log-level", "loud"}, nil, "debug, info, warn, error"},
		{nil, []string{"OBSIDIAN_MCP_TOOL_ERRORS", "both"}, `invalid OBSIDIAN_MCP_TOOL_ERRORS "both"`},
		{[]string{"--command-timeouts", "move"}, nil, "command=duration"},
		{[]string{"--command-timeouts", "move=fast"}, nil, "move: must be a positive"},
		{[]string{"--vault", "a\nb"}, nil, "one line"},
		{[]string{"--vault", "Work=/nonexistent/a"}, nil, `vault Work: "/nonexistent/a" is not an existing folder`},
		{[]string{"--vault", "Work=" + os.TempDir(), "--vault", "Home"}, nil, `"Home" is not name=folder`},
		{[]string{"--vault", "A=" + os.TempDir(), "--vault", "a=" + os.TempDir()}, nil, `the vault name "a" is given twice`},
		{[]string{"--vault", "A;B"}, nil, "several vaults are given as name=folder"},
		{[]string{"--vault-path", "/", "--vault", "A=" + os.TempDir()}, nil, "--vault-path names another folder than the first vault's"},
		{[]string{"--vault", "A=" + os.TempDir(), "--read-only-vaults", "A,Attic"}, nil, `--read-only-vaults names "Attic", which is no vault`},
		{[]string{"--bogus"}, nil, "flag provided but not defined"},
		{[]string{"serve"}, nil, `unexpected argument "serve"`},
		{[]string{"--backend", "app"}, nil, "must be auto, cli or native"},
		{[]string{"--backend", "native"}, nil, "--backend native needs the vault folder"},
		{[]string{"--backend", "native", "--timeout", "x"}, nil, "--backend native needs the vault folder"},
		{nil, []string{"OBSIDIAN_VAULT_PATH", "/nonexistent/vault"}, `invalid OBSIDIAN_VAULT_PATH "/nonexistent/vault": is not an existing folder`},
	}
	for _, b := range bad {
		_, err := ParseConfig(b.args, env(b.env...))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseConfig(%q, %q) err = %v, want %q", b.args, b.env, err, b.want)
		}
	}
}

func TestUsageDocumentsEverything(t *testing.T) {
	t.Parallel()
	u := Usage()
	for _, r := range Rows() {
		if !strings.Contains(u, r.Env) || r.Flag != "" && !strings.Contains(u, "--"+r.Flag) {
			t.Errorf("the usage lacks %s / %s", r.Name(), r.Env)
		}
	}
	if strings.Contains(u, "OBSIDIAN_MCP_LISTEN") {
		t.Error("the stdio usage has serve's settings")
	}
	for _, c := range []string{"serve [flags]", "bridge [flags]", "gateway [flags]", "doctor [flags]"} {
		if !strings.Contains(u, "obsidian-mcp "+c) {
			t.Errorf("the top usage does not list %s", c)
		}
	}
	for _, w := range []string{"--version", "--help"} {
		if !strings.Contains(u, w) {
			t.Errorf("usage lacks %s", w)
		}
	}
}

func TestParseConfigSourcesAndPlaceholders(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"OBSIDIAN_VAULT":       "${user_config.vault}", // left unfilled at install
		"OBSIDIAN_BIN":         "${user_config.obsidian_bin}",
		"OBSIDIAN_MCP_TIMEOUT": "45", // an MCPB number field: seconds
		"OBSIDIAN_MCP_BACKEND": "cli",
	}
	c, err := ParseConfig([]string{"--backend", "auto"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Vault != "" || c.ObsidianBin != "" || c.Timeout != 45*time.Second || c.Backend != "auto" {
		t.Errorf("config = %+v", c)
	}
	if len(c.Ignored) != 2 || !strings.Contains(c.Ignored[0]+c.Ignored[1], "OBSIDIAN_VAULT=${user_config.vault}") {
		t.Errorf("Ignored = %q", c.Ignored)
	}
	sources := map[string]string{}
	for _, s := range c.Settings {
		sources[s.Flag] = s.Source + "=" + s.Value
	}
	for flag, want := range map[string]string{"backend": "--backend=auto", "timeout": "OBSIDIAN_MCP_TIMEOUT=45", "vault": "default=", "log-level": "default=info"} {
		if sources[flag] != want {
			t.Errorf("setting %s = %q, want %q", flag, sources[flag], want)
		}
	}
	if len(c.Settings) != len(Rows()) {
		t.Errorf("%d settings for %d rows", len(c.Settings), len(Rows()))
	}
}

func TestParseConfigReportsEveryError(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig([]string{"--timeout", "-1", "--log-level", "loud"}, func(k string) string {
		return map[string]string{"OBSIDIAN_VAULT_PATH": "/nonexistent/vault"}[k]
	})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`invalid --timeout "-1"`, `invalid --log-level "loud"`, `invalid OBSIDIAN_VAULT_PATH "/nonexistent/vault"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; lacks %q", err, want)
		}
	}
	if c.ToolErrors != ToolErrorsProtocol || c.Backend != "auto" {
		t.Errorf("the valid settings were not kept: %+v", c)
	}
}

// TestPolicyConfig: the folder policy's globs, from flags or the
// environment; a refusal names the setting the user wrote, and a bad glob
// is reported with its setting.
func TestPolicyConfig(t *testing.T) {
	t.Parallel()
	getenv := func(k string) string {
		return map[string]string{"OBSIDIAN_MCP_WRITE_PATHS": "Inbox/**,{Daily,Journal}/**", "OBSIDIAN_MCP_DENY_PATHS": "Ignored/**"}[k]
	}
	c, err := ParseConfig([]string{"--deny-paths", "Private/**, *.secret.md"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Policy
	if len(p.Deny) != 2 || len(p.Write) != 2 || len(p.Read) != 0 {
		t.Fatalf("policy = %+v", p)
	}
	if got := p.Deny[0].String(); got != "--deny-paths Private/**" {
		t.Errorf("deny rule = %q", got)
	}
	if got := p.Write[1].String(); got != "OBSIDIAN_MCP_WRITE_PATHS {Daily,Journal}/**" {
		t.Errorf("write rule = %q", got)
	}
	if !p.Hidden("Private/a.md") || p.Hidden("Ignored/a.md") || p.CheckWrite("Journal/2026.md") != nil || p.CheckWrite("Projects/a.md") == nil {
		t.Error("the configured policy does not decide as given")
	}
	_, err = ParseConfig(nil, func(k string) string {
		return map[string]string{"OBSIDIAN_MCP_READ_PATHS": "Notes/[a-"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "OBSIDIAN_MCP_READ_PATHS") || !strings.Contains(err.Error(), "not a valid glob") {
		t.Errorf("a bad glob: %v", err)
	}
	if c, err := ParseConfig(nil, func(string) string { return "" }); err != nil || c.Policy.Restricts() {
		t.Errorf("default policy = %+v, %v; want one that restricts nothing", c.Policy, err)
	}
}

// keyIs reports whether k is the key want: a request carrying want passes.

// TestToolsConfig: --tools takes toolset names, case and spaces ignored;
// an unknown one is refused naming those that exist.
func TestToolsConfig(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	if c, err := ParseConfig(nil, none); err != nil || len(c.Tools) != 1 || c.Tools[0] != "all" {
		t.Errorf("default: %v, %v", c.Tools, err)
	}
	if c, err := ParseConfig([]string{"--tools", " Read, graph "}, none); err != nil || strings.Join(c.Tools, ",") != "read,graph" {
		t.Errorf("--tools read,graph: %v, %v", c.Tools, err)
	}
	env := func(k string) string { return map[string]string{"OBSIDIAN_MCP_TOOLS": "read,writes"}[k] }
	if _, err := ParseConfig(nil, env); err == nil || !strings.Contains(err.Error(), `invalid OBSIDIAN_MCP_TOOLS "read,writes": "writes" is no toolset: use all, or some of read, graph, edit, files, daily`) {
		t.Errorf("an unknown toolset: %v", err)
	}
	if _, err := ParseConfig([]string{"--tools", " , "}, none); err == nil || !strings.Contains(err.Error(), "names no toolset") {
		t.Errorf("no toolset named: %v", err)
	}
}

// Several vaults: --vault name=folder once per vault, or the variable
// with ; between them; the first is the default.
func TestSeveralVaults(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			if len(kv) == 2 && k == kv[0] {
				return kv[1]
			}
			return ""
		}
	}
	a, b := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		args []string
		env  []string
	}{
		{[]string{"--vault", "Work=" + a, "--vault", "Home=" + b, "--backend", "native"}, nil},
		{[]string{"--backend", "native"}, []string{"OBSIDIAN_VAULT", " Work = " + a + " ; Home=" + b + ";"}},
		{[]string{"--backend", "native", "--vault-path", a}, []string{"OBSIDIAN_VAULT", "Work=" + a + ";Home=" + b}},
	} {
		cfg, err := ParseConfig(c.args, env(c.env...))
		want := []NamedVault{{"Work", a}, {"Home", b}}
		if err != nil || !reflect.DeepEqual(cfg.Vaults, want) || cfg.Vault != "Work" || cfg.VaultPath != a {
			t.Errorf("%q %q: %+v %q %q, %v", c.args, c.env, cfg.Vaults, cfg.Vault, cfg.VaultPath, err)
		}
	}
	cfg, err := ParseConfig([]string{"--vault", "One"}, env())
	if err != nil || cfg.Vault != "One" || cfg.Vaults != nil {
		t.Errorf("one vault by name: %+v, %v", cfg, err)
	}
}

// TestNestedVaultsAreRefused: vaults whose folders contain each other (or
// are one folder) are refused at start, naming both: the outer one wrote
// into a --read-only-vaults folder and read past the inner one's
// .mcpignore.
func TestNestedVaultsAreRefused(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	inner := filepath.Join(outer, "Inner")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ vaults, want string }{
		{"Outer=" + outer + ";Inner=" + inner, "vault Inner (" + inner + ") lies inside vault Outer"},
		{"Inner=" + inner + ";Outer=" + outer, "vault Inner (" + inner + ") lies inside vault Outer"},
	}
	// Symlinks need privileges on Windows: the linked cases are Unix's.
	if runtime.GOOS != "windows" {
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(inner, link); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, []struct{ vaults, want string }{
			{"Outer=" + outer + ";Linked=" + link, "lies inside vault Outer"},
			{"A=" + inner + ";B=" + link, "are the same folder"},
		}...)
	}
	for _, c := range cases {
		_, err := ParseConfig([]string{"--backend", "native", "--vault", c.vaults}, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.vaults, err, c.want)
		}
	}
}
