package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestInspectorEras: the MCP Inspector's CLI in each of its protocol eras
// (legacy: initialize and a session; modern: MCP 2026-07-28 requests that
// stand alone, with subscriptions/listen; auto: it finds out) against
// every face: stdio, serve, a gateway vault namespace, this program as a
// gateway command namespace, and the stdio bridge in front of serve as
// one. Each lists the tools and reads a note, within the Inspector's own
// connect timeout (15 s): a face that leaves it waiting fails.
func TestInspectorEras(t *testing.T) {
	outside(t)
	t.Parallel()
	vault, _ := helloVault(t, "# Hello\nevery era\n")
	s, g := everyHTTPFace(t, vault)
	faces := []struct {
		name   string
		target []string
	}{
		{"stdio", []string{binary, "--backend", "native", "--vault-path", vault}},
		{"serve", []string{s.url, "--transport", "http"}},
		{"gateway vault namespace", []string{g.url + "/mcp/notes", "--transport", "http"}},
		{"gateway command namespace", []string{g.url + "/mcp/stdio", "--transport", "http"}},
		{"bridge as a gateway command namespace", []string{g.url + "/mcp/bridge", "--transport", "http"}},
	}
	for _, f := range faces {
		for _, era := range []string{"legacy", "modern", "auto"} {
			t.Run(f.name+"/"+era, func(t *testing.T) {
				args := append(append([]string{}, f.target...), "--protocol-era", era, "--format", "json")
				out, errOut, code := inspectorAt(t, append(args, "--method", "tools/list")...)
				inspectorToolList(t, out, errOut, code)
				out, errOut, code = inspectorAt(t, append(args, "--method", "tools/call", "--tool-name", "obsidian_read_note", "--tool-arg", "path=Hello.md")...)
				if code != 0 || !strings.Contains(out, `every era`) {
					t.Errorf("tools/call: exit %d, stdout %.500q, stderr %.2000s", code, out, errOut)
				}
			})
		}
	}
	if t.Failed() {
		t.Logf("gateway stderr:\n%s", g.stderr)
	}
}

// TestFacesAgree: the same request gets the same answer on every HTTP
// face (serve, a gateway vault namespace, this program and the stdio
// bridge as gateway command namespaces): the revision initialize
// negotiates, and on MCP 2026-07-28 a subscriptions/listen acknowledged
// under the client's own id, whatever its type, and an unknown tool's
// status and code.
func TestFacesAgree(t *testing.T) {
	t.Parallel()
	vault, _ := helloVault(t, "# Hello\n")
	s, g := everyHTTPFace(t, vault)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	modern := func(method, name string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}
	requests := []struct {
		name    string
		body    string
		headers map[string]string
		// pick is what of the answer must agree.
		pick *regexp.Regexp
		// bridge is the stdio bridge's answer where its contract differs.
		bridge string
	}{
		{"initialize 2025-11-25", `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil,
			regexp.MustCompile(`"id":"i"|"protocolVersion":"[^"]*"`), ""},
		{"initialize 2025-06-18", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil,
			regexp.MustCompile(`"id":7|"protocolVersion":"[^"]*"`), ""},
		{"initialize an unknown revision", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil,
			regexp.MustCompile(`"id":8|"protocolVersion":"[^"]*"`), ""},
		{"initialize sent as a 2026-07-28 request", `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"t","version":"1"},` + meta + `}}`, modern("initialize", ""),
			regexp.MustCompile(`^\d+|"id":10|"protocolVersion":"[^"]*"|"code":-?\d+`), ""},
		{"listen, a string id", `{"jsonrpc":"2.0","id":"abc","method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true},` + meta + `}}`, modern("subscriptions/listen", ""),
			regexp.MustCompile(`notifications/subscriptions/acknowledged|"io.modelcontextprotocol/subscriptionId":[^,}]*`), ""},
		{"listen, a number id", `{"jsonrpc":"2.0","id":1234,"method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true},` + meta + `}}`, modern("subscriptions/listen", ""),
			regexp.MustCompile(`notifications/subscriptions/acknowledged|"io.modelcontextprotocol/subscriptionId":[^,}]*`), ""},
		{"an unknown tool", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"obsidian_nope","arguments":{},` + meta + `}}`, modern("tools/call", "obsidian_nope"),
			regexp.MustCompile(`^\d+|"id":9|"code":-?\d+|"isError":true|"resultType":"complete"`),
			// Its contract answers a tool it does not have with an isError
			// result ("Tool 'x' not found").
			`200 "id":9 "isError":true "resultType":"complete"`},
	}
	faces := []struct{ name, url string }{
		{"serve", s.url},
		{"gateway vault namespace", g.url + "/mcp/notes"},
		{"gateway command namespace", g.url + "/mcp/stdio"},
		{"bridge as a gateway command namespace", g.url + "/mcp/bridge"},
	}
	for _, r := range requests {
		var first string
		for i, f := range faces {
			got := strings.Join(r.pick.FindAllString(firstMessage(t, f.url, r.body, r.headers), -1), " ")
			if f.name == "bridge as a gateway command namespace" && r.bridge != "" {
				if got != r.bridge {
					t.Errorf("%s: the bridge answers %q, want %q", r.name, got, r.bridge)
				}
				continue
			}
			if i == 0 {
				first = got
				if got == "" {
					t.Errorf("%s on serve: nothing to compare", r.name)
				}
			} else if got != first {
				t.Errorf("%s: %s answers %q; serve answers %q", r.name, f.name, got, first)
			}
		}
	}
}

// firstMessage posts body to url and returns the HTTP status and the
// first message of the answer (the first event of a stream), which it
// stops reading there: a listen's stream stays open.
func firstMessage(t *testing.T, url, body string, headers map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return fmt.Sprintf("%d %s", resp.StatusCode, data)
		}
		if strings.HasPrefix(line, "{") {
			return fmt.Sprintf("%d %s", resp.StatusCode, line)
		}
	}
	t.Fatalf("POST %s: no message in the answer (%d): %v", url, resp.StatusCode, sc.Err())
	return ""
}

// helloVault is a vault folder (with .obsidian) holding Hello.md with
// text; it returns the folder and the note's path.
func helloVault(t *testing.T, text string) (vault, hello string) {
	t.Helper()
	vault = t.TempDir()
	if err := os.Mkdir(filepath.Join(vault, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	hello = filepath.Join(vault, "Hello.md")
	if err := os.WriteFile(hello, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return vault, hello
}

// everyHTTPFace serves vault on serve and on a gateway with three
// namespaces: notes (a vault namespace), stdio (this program as a command
// namespace) and bridge (the stdio bridge in front of serve).
func everyHTTPFace(t *testing.T, vault string) (s, g *served) {
	t.Helper()
	s = serve(t, []string{"--backend", "native", "--vault-path", vault})
	t.Cleanup(func() { s.stop(t) })
	g = gateway(t, fmt.Sprintf(`namespaces:
  notes:
    vault_path: %q
  stdio:
    command: %q
    args: [--backend, native, --vault-path, %q]
  bridge:
    command: %q
    args: [bridge, --url, %q, --transport, mcp]
`, vault, binary, vault, binary, s.url))
	t.Cleanup(func() { g.stop(t) })
	return s, g
}
