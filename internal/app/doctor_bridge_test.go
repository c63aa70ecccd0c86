package app

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/serve"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// serveForTest runs ServeHTTP on a loopback port over a small vault and
// returns its root URL.
func serveForTest(t *testing.T, env map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Note.md"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--backend", "native", "--vault-path", dir, "--listen", "127.0.0.1:0"}
	cfg, err := serve.ParseConfig(args, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := serve.Run(ctx, cfg, slog.New(slog.DiscardHandler), "test", func(a net.Addr) { addr <- a }); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + (<-addr).String()
}

// TestDoctorBridge: doctor --bridge says what answers, which transport the
// bridge would use, and how to fix a missing key, against our own server.
func TestDoctorBridge(t *testing.T) {
	t.Parallel()
	const key = "0123456789abcdef0123"
	open := serveForTest(t, nil)
	locked := serveForTest(t, map[string]string{"OBSIDIAN_MCP_API_KEY": key})
	port := func(u string) string { return u[strings.LastIndex(u, ":")+1:] }
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		code  int
		want  []string
		avoid []string
	}{
		{name: "auto, open server", args: []string{"--port", port(open)}, code: 0, want: []string{
			"✓ MCP over HTTP at " + open + "/mcp answers: " + strconv.Itoa(len(tools.WithoutCommands(tools.All(tools.Vault{})))) + " tools", "a session, protocol 2025-11-25",
			"✓ the Bridge Protocol v1 at " + open + "/bridge/v1 answers:",
			"✓ ready: the bridge would serve", "over MCP over HTTP (--transport auto)", `"bridge"`}},
		{name: "v1 only", args: []string{"--url", open + "/mcp", "--transport", "v1"}, code: 0, want: []string{
			"✓ ready: the bridge would serve", "over the Bridge Protocol v1 (--transport v1)"}},
		{name: "key missing", args: []string{"--port", port(locked)}, code: 1, want: []string{
			"– MCP over HTTP at " + locked + "/mcp refuses the bridge: this server needs its API key (HTTP 401 UNAUTHORIZED)", "set OBSIDIAN_MCP_API_KEY",
			"✗ not ready"}},
		{name: "key given, auto: MCP", args: []string{"--port", port(locked)}, env: map[string]string{"OBSIDIAN_MCP_API_KEY": key}, code: 0, want: []string{
			"✓ MCP over HTTP", "– the Bridge Protocol v1 at " + locked + "/bridge/v1 refuses the bridge: this server needs its API key (HTTP 401 UNAUTHORIZED)",
			"✓ ready", `"OBSIDIAN_MCP_API_KEY": "<your key>"`}, avoid: []string{key}},
		{name: "key given, v1 cannot carry it", args: []string{"--port", port(locked), "--transport", "v1"}, env: map[string]string{"OBSIDIAN_MCP_API_KEY": key}, code: 1, want: []string{
			"✗ the Bridge Protocol v1 at " + locked + "/bridge/v1 refuses the bridge", "use --transport mcp or auto", "✗ not ready"}},
		{name: "nothing there", args: []string{"--port", "1", "--transport", "mcp"}, code: 1, want: []string{
			"✗ MCP over HTTP at http://127.0.0.1:1/mcp does not answer", "✗ not ready"}},
		{name: "invalid port warns", args: []string{"--port", "x", "--url", open + "/mcp"}, code: 0, want: []string{
			`– setting ignored: --port: "x" is not a port`, "✓ ready"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			code := Doctor(t.Context(), append([]string{"--bridge"}, tc.args...), func(k string) string { return tc.env[k] }, &out, "test", vaultserver.Machine{})
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no %q in:\n%s", w, out.String())
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(out.String(), a) {
					t.Errorf("%q shown:\n%s", a, out.String())
				}
			}
		})
	}
}
