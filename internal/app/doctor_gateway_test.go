package app

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// passStore is an OAuth store with a passphrase set.
func passStore(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "oauth.json")
	s, err := authserver.OpenStoreFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPassphrase("correct horse battery"); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestDoctorGateway: doctor --gateway checks the file, the listeners and
// every namespace: vaults as doctor checks the stdio server's settings,
// worded with the namespace's keys, and commands found and started once
// (this test binary is a real stdio server under stdioServerEnv).
func TestDoctorGateway(t *testing.T) {
	t.Parallel()
	// A server that says boom on stderr and exits 3, in the system's shell.
	crashShell, crashFlag, crashScript := "sh", "-c", "echo boom >&2; exit 3"
	if runtime.GOOS == "windows" {
		crashShell, crashFlag, crashScript = "cmd", "/c", "echo boom>&2& exit 3"
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	vault := t.TempDir()
	if err := os.Mkdir(filepath.Join(vault, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "Note.md"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = taken.Close() })
	selfNS := fmt.Sprintf("  self:\n    command: %q\n    args: [--backend, native, --vault-path, %q]\n    env: {%s: \"1\"}\n", self, vault, stdioServerEnv)
	tests := []struct {
		name   string
		yaml   string // "" for no file at all
		args   func(file string) []string
		env    map[string]string
		code   int
		want   []string // in order
		absent []string
	}{
		{
			name: "a vault and a command, both ready",
			yaml: fmt.Sprintf("listen: 127.0.0.1:0\ndebug_listen: 127.0.0.1:0\nallowed_origins: [http://localhost:3000]\nnamespaces:\n  notes:\n    vault_path: %q\n    read_only: true\n    deny_paths: [Private/**]\n%s", vault, selfNS),
			code: 0,
			want: []string{
				"✓ obsidian-mcp 1.2.3-test gateway",
				": 2 namespaces (notes, self)",
				"✓ API: would listen on a free port the system picks (127.0.0.1:0), such as http://127.0.0.1:",
				"✓ debug dashboard: would listen on a free port",
				"✓ access: no API key, so loopback only; Host localhost or 127.0.0.1; browser pages from loopback origins and http://localhost:3000; requests up to 1 MiB, answers up to 10 MiB, 5 streams at once",
				"namespace notes (vault, line 5 of ",
				"    ✓ settings are valid (backend native, read-only)",
				"    ✓ vault folder: " + vault + " (set by vault_path)",
				"    ✓ native backend: " + vault + " is readable (1 file); read-only: the server refuses every write",
				"    ✓ folder policy: hides deny_paths Private/**",
				"    ✓ ready: tools are served from the vault folder",
				"namespace self (command, line 9 of ",
				"    ✓ command: " + self,
				"    ✓ started once: obsidian-mcp 7.7.7-test (protocol 2025-11-25) answered with",
				" tools in ",
				"✓ ready: the gateway would serve 2 namespaces at /mcp/{namespace}",
			},
			absent: []string{"✗", "--deny-paths", "OBSIDIAN_VAULT_PATH"},
		},
		{
			name: "every namespace wrong, each said with its fix",
			yaml: fmt.Sprintf(`listen: %s
namespaces:
  gone:
    vault_path: %q
  app:
    vault: Work
  absent:
    command: no-such-mcp-server-anywhere
  nodir:
    command: %q
    cwd: %q
  crash:
    command: %s
    args: [%s, %q]
`, taken.Addr(), filepath.Join(vault, "missing"), self, filepath.Join(vault, "nowhere"), crashShell, crashFlag, crashScript),
			code: 1,
			want: []string{
				": 5 namespaces (gone, app, absent, nodir, crash)",
				"– API: " + taken.Addr().String() + " is taken", "choose a free address with listen in ",
				"namespace gone (vault",
				`    ✗ settings: invalid vault_path "` + filepath.Join(vault, "missing") + `": is not an existing folder`,
				"namespace app (vault",
				// The CLI is looked for on a machine that has none.
				"    ✗ Obsidian CLI not found", "set OBSIDIAN_BIN in the gateway's environment",
				"    ✗ vault folder: unknown (no vault_path, and the app did not answer)", "fix: set vault_path to the vault folder",
				"namespace absent (command",
				`    ✗ command "no-such-mcp-server-anywhere" cannot be run:`, "fix: install it, or give its full path in command",
				"namespace nodir (command",
				"    ✗ cwd " + filepath.Join(vault, "nowhere") + " is not a folder", "fix: create it, or correct cwd",
				"namespace crash (command",
				"    ✗ the server does not start and answer: the crash server could not be started: the process exited (exit status 3: boom)",
				"fix: run `" + crashShell + " " + crashFlag + " '" + crashScript + "'` in a terminal",
				"✗ not ready: 5 namespaces could not serve (gone, app, absent, nodir, crash)",
			},
			absent: []string{"OBSIDIAN_VAULT", "--vault"},
		},
		{
			name: "beyond loopback without a key: refused, as the gateway refuses to start",
			yaml: fmt.Sprintf("listen: 0.0.0.0:0\ndebug_listen: 127.0.0.1:0\nnamespaces:\n  notes:\n    vault_path: %q\n", vault),
			code: 1,
			want: []string{"✗ access: listen 0.0.0.0:0 reaches beyond this machine, and no API key is set", "fix: set OBSIDIAN_MCP_API_KEY or --api-key-file (at least 16 characters",
				"namespace notes", "    ✓ ready:", "✗ not ready: the gateway would not start, for what the ✗ access or oauth line above says"},
		},
		{
			name: "OAuth beyond loopback over plain HTTP: refused",
			yaml: fmt.Sprintf("listen: 0.0.0.0:0\ndebug_listen: 127.0.0.1:0\noauth: {built_in: true, store: %q}\nnamespaces:\n  notes:\n    vault_path: %q\n", filepath.Join(vault, "none.json"), vault),
			code: 1,
			want: []string{"✗ access: listen 0.0.0.0:0 reaches beyond this machine with OAuth, but over plain HTTP: tokens would cross the network in the clear", "fix: serve HTTPS (tls: {cert, key} or {acme: [domain]})",
				"✗ oauth (built_in): would not start: no passphrase is set in " + filepath.Join(vault, "none.json"), "✗ not ready"},
		},
		{
			name: "OAuth built in, behind a proxy",
			yaml: fmt.Sprintf("listen: 0.0.0.0:0\ndebug_listen: 127.0.0.1:0\nbehind_proxy: [192.168.1.10]\noauth: {built_in: true, store: %q}\nnamespaces:\n  notes:\n    vault_path: %q\n", passStore(t), vault),
			code: 0,
			want: []string{"✓ access: reachable from the network; the namespaces take OAuth access tokens (over HTTPS from other machines);",
				"✓ oauth (built_in): the built-in authorization server; store ", "passphrase set, 0 approved client(s)", "✓ ready: the gateway would serve 1 namespace"},
		},
		{
			name:   "beyond loopback with a key",
			yaml:   fmt.Sprintf("listen: 0.0.0.0:0\ndebug_listen: 127.0.0.1:0\nlimits: {max_request: 512KB, max_connections: 1}\nnamespaces:\n  notes:\n    vault_path: %q\n", vault),
			env:    map[string]string{"OBSIDIAN_MCP_API_KEY": "doctor-gateway-key-0123"},
			code:   0,
			want:   []string{"✓ access: reachable from the network; every request must carry the API key;", "requests up to 512 KB, answers up to 10 MiB, 1 stream at once", "✓ ready: the gateway would serve 1 namespace"},
			absent: []string{"doctor-gateway-key-0123", "✗"},
		},
		{
			name:   "a key too short",
			yaml:   "namespaces:\n  notes:\n    vault_path: /x\n",
			env:    map[string]string{"OBSIDIAN_MCP_API_KEY": "short-key"},
			code:   1,
			want:   []string{"✗ invalid OBSIDIAN_MCP_API_KEY: the key is too short: use at least 16 characters"},
			absent: []string{"short-key"},
		},
		{
			name:   "a mistake in the file, with its line",
			yaml:   "namespaces:\n  notes:\n    vault_path: /x\n    colour: blue\n",
			code:   1,
			want:   []string{"✗ ", "line 4", "colour", "fix: correct that line of "},
			absent: []string{"namespace notes"},
		},
		{
			name: "no file",
			args: func(string) []string { return []string{"--config", filepath.Join(vault, "none.yaml")} },
			code: 1,
			want: []string{"✗ the gateway's configuration cannot be read:", "none.yaml", "fix: give the file as `obsidian-mcp doctor --gateway FILE`"},
		},
		{
			name: "help",
			args: func(string) []string { return []string{"--help"} },
			code: 0,
			want: []string{"Usage: obsidian-mcp doctor --gateway [gateway.yaml | flags]", "A gateway.yaml:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "gateway.yaml")
			if tt.yaml != "" {
				if err := os.WriteFile(file, []byte(tt.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"--gateway", file}
			if tt.args != nil {
				args = append([]string{"--gateway"}, tt.args(file)...)
			}
			var out bytes.Buffer
			code := Doctor(context.Background(), args, func(k string) string { return tt.env[k] }, &out, "1.2.3-test", vaultserver.Machine{Finder: nowhere})
			text := out.String()
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, text)
			}
			rest := text
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing (in order) %q in:\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(text, a) {
					t.Errorf("has %q:\n%s", a, text)
				}
			}
		})
	}
}
