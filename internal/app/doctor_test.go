package app

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
)

// nowhere is a machine where the CLI is not installed.
var nowhere = obsidiancli.Finder{GOOS: "linux", Getenv: func(string) string { return "" },
	LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Stat: func(string) (os.FileInfo, error) { return nil, os.ErrNotExist }}

// TestDoctorServeSection: doctor takes serve's settings and says how serve
// would listen (the vault server's own checks are its package's tests).
func TestDoctorServeSection(t *testing.T) {
	t.Parallel()
	vaultDir := func(t *testing.T) string {
		d := t.TempDir()
		if err := os.Mkdir(filepath.Join(d, ".obsidian"), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	type setup struct {
		args   []string
		env    map[string]string
		finder obsidiancli.Finder
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T) setup
		exit    int
		want    []string // parts of lines that must appear, in order
		absent  []string
	}{
		{
			name: "HTTP: how serve would listen, with a key, beyond loopback",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--listen", "0.0.0.0:0", "--cors-origin", "https://chat.example"},
					env: map[string]string{"OBSIDIAN_MCP_API_KEY": "doctor-key-0123456789"}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"✓ HTTP (obsidian-mcp serve): would listen on http://0.0.0.0:0 (/mcp, /bridge/v1, /v1/mcp): reachable from the network; every request must carry the API key; browser pages from loopback origins and https://chat.example", "OBSIDIAN_MCP_API_KEY (set)", "from OBSIDIAN_MCP_API_KEY", "✓ ready"},
			absent: []string{"doctor-key-0123456789", `"OBSIDIAN_MCP_LISTEN"`},
		},
		{
			name: "HTTP: a taken port is reported, and is no failure",
			prepare: func(t *testing.T) setup {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = ln.Close() })
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--listen", ln.Addr().String()}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"– HTTP (obsidian-mcp serve): 127.0.0.1:", "is taken", "✓ ready"},
			absent: []string{"✗"},
		},
		{
			name: "HTTP: --oauth without a passphrase would not start; with one it would",
			prepare: func(t *testing.T) setup {
				store := filepath.Join(t.TempDir(), "oauth.json")
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--listen", "127.0.0.1:0", "--oauth", "--oauth-store", store}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"✓ HTTP (obsidian-mcp serve): would listen", "built-in authorization server", "– OAuth (serve --oauth): would not start: no passphrase is set in", "obsidian-mcp oauth passphrase"},
			absent: []string{"✓ OAuth"},
		},
		{
			name: "HTTP: --oauth with a passphrase",
			prepare: func(t *testing.T) setup {
				store := filepath.Join(t.TempDir(), "oauth.json")
				if code := authserver.Command([]string{"passphrase", "--oauth-store", store}, func(string) string { return "" },
					authserver.Streams{In: strings.NewReader("correct horse battery\n"), Out: &strings.Builder{}, Err: &strings.Builder{}}); code != 0 {
					t.Fatalf("passphrase: exit %d", code)
				}
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--listen", "127.0.0.1:0", "--oauth", "--oauth-store", store}, finder: nowhere}
			},
			exit: 0,
			want: []string{"✓ OAuth (serve --oauth): the built-in authorization server; store", "passphrase set, 0 approved client(s)"},
		},
		{
			name: "HTTP: beyond loopback without a key, serve would not start",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--listen", "0.0.0.0:0"}, finder: nowhere}
			},
			exit:   1,
			want:   []string{"✗ configuration: --listen 0.0.0.0:0 reaches beyond this machine, and no API key is set", "– HTTP (obsidian-mcp serve): would not start: 0.0.0.0:0 reaches beyond this machine and no API key is set"},
			absent: []string{"loopback only"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.prepare(t)
			var out strings.Builder
			code := Doctor(t.Context(), s.args, func(k string) string { return s.env[k] }, &out, "1.2.3-test",
				vaultserver.Machine{Finder: s.finder, Executable: "/opt/obsidian-mcp", GOOS: "linux"})
			got := out.String()
			if code != tt.exit {
				t.Errorf("exit %d, want %d", code, tt.exit)
			}
			obsidiantest.InOrder(t, got, tt.want, tt.absent)
			if t.Failed() {
				t.Logf("output:\n%s", got)
			}
		})
	}
}
