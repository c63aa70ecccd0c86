package app

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/gateway"
)

// vaultDir is a vault folder with one note.
func vaultDir(t *testing.T, note string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Note.md"), []byte(note), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGatewayVaultSettings: a vault namespace's settings are checked as
// the server's own flags, and worded with the file's keys; the
// environment gives only the machine's settings, never a vault.
func TestGatewayVaultSettings(t *testing.T) {
	dir := vaultDir(t, "x")
	env := map[string]string{"OBSIDIAN_VAULT_PATH": dir, "OBSIDIAN_MCP_READ_ONLY": "true", "OBSIDIAN_MCP_TIMEOUT": "7s"}
	open := openVault(func(k string) string { return env[k] }, slog.New(slog.DiscardHandler), "test")
	for _, c := range []struct {
		ns   gateway.Namespace
		want string
	}{
		{gateway.Namespace{Name: "a", VaultPath: filepath.Join(dir, "missing")}, "vault_path"},
		{gateway.Namespace{Name: "b", VaultPath: dir, ReadPaths: []string{"../up"}}, "read_paths"},
		{gateway.Namespace{Name: "c", Vault: "Work", Backend: "native"}, "backend native needs the vault folder"},
	} {
		if _, err := open(c.ns); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %v, want an error naming %s without flags", c.ns, err, c.want)
		}
	}
	none := func(string) string { return "" }
	if cfg, err := namespaceConfig(gateway.Namespace{VaultPath: dir}, none); err != nil || cfg.Backend != "native" {
		t.Errorf("a folder alone is not served natively: %v, %v", cfg.Backend, err)
	}
	if cfg, err := namespaceConfig(gateway.Namespace{VaultPath: dir, Vault: "Work"}, none); err != nil || cfg.Backend != "auto" {
		t.Errorf("a folder and a name get backend %v, %v; want the default", cfg.Backend, err)
	}
	v, err := open(gateway.Namespace{Name: "ok", VaultPath: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// OBSIDIAN_MCP_READ_ONLY did not make it read-only; the timeout (7 s,
	// bound 2×7+5) came through.
	if v.Core.Server().GetTool("obsidian_create_note") == nil || v.Core.CallTimeout() != 19*time.Second {
		t.Errorf("environment leaked or lost: create_note %v, bound %v", v.Core.Server().GetTool("obsidian_create_note") != nil, v.Core.CallTimeout())
	}
}

// TestMainGateway: bad files exit 2 with their line; a good one serves
// until ctx ends.
func TestMainGateway(t *testing.T) {
	dir := t.TempDir()
	run := func(yaml string, ctx context.Context) (int, string) {
		file := filepath.Join(dir, "g.yaml")
		if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		code := Main(ctx, []string{"gateway", "--config", file}, func(string) string { return "" }, Streams{In: strings.NewReader(""), Out: &out, Err: &errs}, "test")
		return code, errs.String()
	}
	if code, errs := run("namespaces:\n  bad name:\n    vault_path: /x\n", context.Background()); code != 2 || !strings.Contains(errs, "g.yaml line 2") {
		t.Errorf("bad name: %d %s", code, errs)
	}
	if code, errs := run("namespaces:\n  n:\n    vault_path: /does/not/exist\n", context.Background()); code != 2 || !strings.Contains(errs, `namespace "n" (line 2)`) || !strings.Contains(errs, "vault_path") {
		t.Errorf("missing vault: %d %s", code, errs)
	}
	if code, errs := run("", context.Background()); code != 2 || !strings.Contains(errs, "is empty") {
		t.Errorf("empty: %d %s", code, errs)
	}
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"gateway", "--help"}, func(string) string { return "" }, Streams{Out: &out, Err: io.Discard}, "test"); code != 0 || !strings.Contains(out.String(), "--config") {
		t.Errorf("--help: %d %s", code, out.String())
	}
	// Served, then stopped by ctx.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan GatewayAddrs, 1)
	done := make(chan error, 1)
	file := filepath.Join(dir, "ok.yaml")
	_ = os.WriteFile(file, []byte("listen: 127.0.0.1:0\ndebug_listen: 127.0.0.1:0\nnamespaces:\n  n:\n    vault_path: "+vaultDir(t, "hello")+"\n"), 0o600)
	go func() {
		done <- RunGateway(ctx, gateway.CommandConfig{File: file}, func(string) string { return "" }, slog.New(slog.DiscardHandler), "test", func(a GatewayAddrs) { addrs <- a })
	}()
	a := <-addrs
	resp, err := http.Get("http://" + a.API.String() + "/health/n")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not stopped")
	}
}

// TestREADMEGatewayExample: the gateway.yaml of the README and of --help
// are valid.
func TestREADMEGatewayExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)`obsidian-mcp gateway --config gateway.yaml`.*?```yaml\n(.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("no gateway.yaml in the README")
	}
	help := gateway.Usage()
	for name, yaml := range map[string]string{"README": string(m[1]), "--help": help[strings.Index(help, "  listen:"):]} {
		cfg, err := gateway.Parse(name, []byte(yaml))
		if err != nil || len(cfg.Namespaces) != 3 || cfg.Namespaces[2].IsVault() {
			t.Errorf("%s example: %v", name, err)
		}
	}
}
