package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// `obsidian-mcp gateway` through real clients on a real loopback
// listener: the TypeScript SDK's SSEClientTransport and
// StreamableHTTPClientTransport run every tool through a vault namespace,
// and curl runs the contract's own examples.

var gatewayServing = regexp.MustCompile(`api=(http://\S+)/mcp/\{namespace\} debug=(http://\S+)/debug`)

// gateway starts `obsidian-mcp gateway` with the namespaces of yaml on
// free loopback ports; url is the API's base, match[2] the debug one's.
func gateway(t *testing.T, yaml string, env ...string) *served {
	t.Helper()
	file := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(file, []byte("listen: 127.0.0.1:0\ndebug_listen: 127.0.0.1:0\nping_interval: 1s\n"+yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return startListening(t, []string{"gateway", "--config", file}, env, gatewayServing)
}

// TestGatewayTypeScriptSDK: every tool through a vault namespace (the
// app's CLI, with the vault's name) over both of the SDK's HTTP
// transports, with the checks of stdio and serve; a second vault
// namespace beside it is another vault.
func TestGatewayTypeScriptSDK(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"sse", "url"} {
		t.Run(transport, func(t *testing.T) {
			outside(t)
			f := obsidiantest.Install(t, obsidiantest.Scenario{VaultName: "Work"})
			other := t.TempDir()
			g := gateway(t, "namespaces:\n  work:\n    vault: Work\n  other:\n    vault_path: "+other+"\n", "OBSIDIAN_BIN="+f.Bin)
			runTSCalls(t, f, "typescript-sdk", map[string]any{transport: g.url + "/mcp/work"})
			if entries, _ := os.ReadDir(other); len(entries) != 0 {
				t.Errorf("the other namespace's vault was written: %v", entries)
			}
			if t.Failed() {
				t.Logf("gateway stderr:\n%s", g.stderr)
			}
		})
	}
}

// TestGatewayCurl: the contract's "Complete Workflow (curl)": a stream
// open with curl -N, initialize, tools/list and a tool call posted with
// curl (202 each), the answers on the stream in order, and the health
// checks; then SIGTERM stops the gateway cleanly.
func TestGatewayCurl(t *testing.T) {
	outside(t)
	t.Parallel()
	curl := need(t, "curl")
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Hello.md"), []byte("# Hello\nfrom the gateway\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gateway(t, "namespaces:\n  notes:\n    vault_path: "+vault+"\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := exec.CommandContext(ctx, curl, "-sN", g.url+"/mcp/notes", "-H", "Content-Type: text/event-stream")
	out, _ := stream.StdoutPipe()
	if err := stream.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stream.Process.Kill(); _ = stream.Wait() }()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok && name != "ping" {
				events <- name + " " + v
			}
		}
		close(events)
	}()
	next := func() string {
		select {
		case ev := <-events:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10 s")
			return ""
		}
	}
	if ev := next(); !strings.HasPrefix(ev, "endpoint /mcp/notes/message?sessionId=") {
		t.Fatalf("first event %q", ev)
	}
	post := func(body string) {
		t.Helper()
		got, err := exec.CommandContext(ctx, curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", g.url+"/mcp/notes/message",
			"-H", "Content-Type: application/json", "-d", body).Output()
		if err != nil || string(got) != "202" {
			t.Fatalf("curl POST %s: %s %v", body, got, err)
		}
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"my-client","version":"1.0.0"}}}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Hello.md"}}}`)
	// The three calls run at once; their answers may come in any order.
	want := map[int]string{1: `"serverInfo":{"name":"obsidian-mcp"`, 2: `"name":"obsidian_read_note"`, 3: `from the gateway`}
	for range want {
		ev, ok := strings.CutPrefix(next(), "message ")
		var m struct{ ID int }
		if err := json.Unmarshal([]byte(ev), &m); !ok || err != nil || !strings.Contains(ev, want[m.ID]) || want[m.ID] == "" {
			t.Fatalf("answer %.300s", ev)
		}
		delete(want, m.ID)
	}
	health, err := exec.CommandContext(ctx, curl, "-s", g.url+"/health/notes").Output()
	if err != nil || strings.TrimSpace(string(health)) != `{"namespace":"notes","status":"running"}` {
		t.Errorf("curl /health/notes: %s %v", health, err)
	}
	code, _ := exec.CommandContext(ctx, curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", g.url+"/health/git").Output()
	if string(code) != "404" {
		t.Errorf("curl /health/git: %s", code)
	}
	if err := terminate(g.cmd.Process); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.exited:
		if g.err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", g.err, g.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit within 15 s of SIGTERM")
	}
	if !strings.Contains(g.stderr.String(), "stopped") {
		t.Errorf("no stop logged:\n%s", g.stderr)
	}
}

// TestGatewayCommandNamespaces: stdio servers as managed subprocesses,
// through the TypeScript SDK's SSE and Streamable HTTP clients: this
// program (every tool, with the checks of stdio), and the official
// filesystem server (@modelcontextprotocol/server-filesystem, pinned in
// scripts/clients), side by side with a vault namespace.
func TestGatewayCommandNamespaces(t *testing.T) {
	outside(t)
	t.Parallel()
	// A vault each, as everyTool changes the one it runs on.
	fakes := map[string]*obsidiantest.Fake{}
	for _, transport := range []string{"sse", "url"} {
		fakes[transport] = obsidiantest.Install(t, obsidiantest.Scenario{VaultName: "Work"})
	}
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "hello.txt"), []byte("hello from disk"), 0o600); err != nil {
		t.Fatal(err)
	}
	fsServer, _ := filepath.Abs(filepath.Join(clientsDir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"))
	g := gateway(t, fmt.Sprintf(`namespaces:
  ours-sse:
    command: %q
    args: [--vault, Work]
    env: {OBSIDIAN_BIN: %q}
  ours-url:
    command: %q
    args: [--vault, Work]
    env: {OBSIDIAN_BIN: %q}
  files:
    command: %q
    args: [%q, %q]
  notes:
    vault_path: %q
`, binary, fakes["sse"].Bin, binary, fakes["url"].Bin, node(t), fsServer, files, t.TempDir()))
	for _, transport := range []string{"sse", "url"} {
		t.Run("ours/"+transport, func(t *testing.T) {
			runTSCalls(t, fakes[transport], "typescript-sdk", map[string]any{transport: g.url + "/mcp/ours-" + transport})
		})
		t.Run("filesystem/"+transport, func(t *testing.T) {
			var got struct {
				Server struct{ Name string }
				Tools  []string
				Steps  []outcome
			}
			written := "written-" + transport + ".txt"
			tsClient(t, "calls", map[string]any{transport: g.url + "/mcp/files", "steps": []map[string]any{
				{"tool": "read_text_file", "arguments": map[string]any{"path": filepath.Join(files, "hello.txt")}},
				{"tool": "write_file", "arguments": map[string]any{"path": filepath.Join(files, written), "content": "via " + transport}},
				{"tool": "list_directory", "arguments": map[string]any{"path": files}},
				{"tool": "read_text_file", "arguments": map[string]any{"path": "/etc/passwd"}},
			}}, &got)
			if got.Server.Name != "secure-filesystem-server" || !slices.Contains(got.Tools, "read_text_file") {
				t.Errorf("server %+v, tools %v", got.Server, got.Tools)
			}
			text := func(i int) string {
				if i >= len(got.Steps) || got.Steps[i].Result == nil || len(got.Steps[i].Result.Content) == 0 {
					return fmt.Sprintf("%+v", got.Steps)
				}
				return got.Steps[i].Result.Content[0].Text
			}
			if text(0) != "hello from disk" || !strings.Contains(text(2), written) || !got.Steps[3].Result.IsError {
				t.Errorf("steps: %q / %q / %q / %+v", text(0), text(1), text(2), got.Steps[3])
			}
			if data, _ := os.ReadFile(filepath.Join(files, written)); string(data) != "via "+transport {
				t.Errorf("written: %q", data)
			}
		})
	}
	// One process per command namespace, for every client session.
	for _, ns := range []string{"ours-sse", "ours-url", "files"} {
		if n := strings.Count(g.stderr.String(), "server process started namespace="+ns+" "); n != 1 {
			t.Errorf("%s started %d times", ns, n)
		}
	}
	if t.Failed() {
		t.Logf("gateway stderr:\n%s", g.stderr)
	}
}

// TestGatewayKillMidCall: the server process is killed (SIGKILL) while a
// call waits on it; the call is answered with the error, the process is
// started again, and serves.
func TestGatewayKillMidCall(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"append"}})
	f.WriteNote("A.md", "alpha")
	g := gateway(t, fmt.Sprintf("namespaces:\n  ours:\n    command: %q\n    env: {OBSIDIAN_BIN: %q}\n", binary, f.Bin))
	answer := make(chan string, 1)
	go func() {
		_, body := httpRequest(t, http.MethodPost, g.url+"/mcp/ours", `{"jsonrpc":"2.0","id":"mid","method":"tools/call","params":{"name":"obsidian_append_to_note","arguments":{"path":"A.md","content":"more"}}}`, nil)
		answer <- string(body)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !slices.ContainsFunc(f.Calls(), func(c []string) bool { return c[0] == "append" }) {
		if time.Now().After(deadline) {
			t.Fatalf("the call never reached the CLI:\n%s", g.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var h struct {
		Status string
		PID    int
	}
	_, body := httpRequest(t, http.MethodGet, g.url+"/health/ours", "", nil)
	if err := json.Unmarshal(body, &h); err != nil || h.Status != "running" || h.PID == 0 {
		t.Fatalf("health: %s", body)
	}
	if p, err := os.FindProcess(h.PID); err != nil {
		t.Fatal(err)
	} else if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answer:
		if !strings.Contains(got, `"id":"mid"`) || !strings.Contains(got, "exited before answering") || !strings.Contains(got, killedExit) {
			t.Errorf("the call in flight: %s", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call in flight was never answered")
	}
	for {
		_, body := httpRequest(t, http.MethodPost, g.url+"/mcp/ours", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
		if strings.Contains(string(body), "obsidian_read_note") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not served again: %s", body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, body = httpRequest(t, http.MethodGet, g.url+"/health/ours", "", nil)
	var again struct{ PID int }
	if json.Unmarshal(body, &again) != nil || again.PID == 0 || again.PID == h.PID {
		t.Errorf("health after the restart: %s (was pid %d)", body, h.PID)
	}
}

// TestGatewayRefusesExposure: a listener beyond loopback without an API key
// is a configuration error (exit 2, the fix on stderr), for the API and
// the dashboard alike; with a key it starts, and curl gets 401 without it.
func TestGatewayRefusesExposure(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	for _, listeners := range []string{"listen: 0.0.0.0:0\ndebug_listen: 127.0.0.1:0\n", "listen: 127.0.0.1:0\ndebug_listen: 0.0.0.0:0\n"} {
		file := filepath.Join(t.TempDir(), "gateway.yaml")
		if err := os.WriteFile(file, []byte(listeners+"namespaces:\n  notes:\n    vault_path: "+vault+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := obsidiantest.RunCommand(t, exec.Command(binary, "gateway", "--config", file))
		if code != 2 || !strings.Contains(stderr, "reaches beyond this machine, and no API key is set") || !strings.Contains(stderr, "OBSIDIAN_MCP_API_KEY or --api-key-file") {
			t.Errorf("%q without a key: exit %d\n%s", listeners, code, stderr)
		}
	}
	const key = "exposure-test-key-0123456789"
	g := startListening(t, []string{"gateway", "--config", writeGatewayFile(t, "listen: 0.0.0.0:0\ndebug_listen: 127.0.0.1:0\nnamespaces:\n  notes:\n    vault_path: "+vault+"\n")},
		[]string{"OBSIDIAN_MCP_API_KEY=" + key}, gatewayServing)
	defer g.stop(t)
	if resp, _ := httpRequest(t, http.MethodGet, g.url+"/health", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/health without the key: %d", resp.StatusCode)
	}
	if resp, body := httpRequest(t, http.MethodGet, g.url+"/health", "", map[string]string{"X-Api-Key": key}); resp.StatusCode != 200 || !strings.Contains(string(body), "healthy") {
		t.Errorf("/health with the key: %d %s", resp.StatusCode, body)
	}
}

func writeGatewayFile(t *testing.T, yaml string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}
