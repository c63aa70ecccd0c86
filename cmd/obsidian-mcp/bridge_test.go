package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// The Bridge Protocol v1 and MCP-over-HTTP examples of the plugin's
// contract (README, "Over HTTP"), replayed with curl as written
// (only the tool name and the note's path adapted), and their documented
// answers checked.

// curl runs curl with args and returns its output; -s -w appends the
// status on a last line.
func curl(t *testing.T, args ...string) (string, int) {
	t.Helper()
	bin := need(t, "curl")
	out, err := exec.Command(bin, append(args, "-w", "\n%{http_code}")...).Output()
	if err != nil {
		t.Fatalf("curl %v: %v", args, err)
	}
	s := string(out)
	i := strings.LastIndexByte(s, '\n')
	var status int
	_ = json.Unmarshal([]byte(s[i+1:]), &status)
	return s[:i], status
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	return m
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestBridgeV1CurlExamples(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Notes/Example.md", "# Example\nHello")
	s := serve(t, []string{"--backend", "native", "--vault-path", f.Vault})
	base := strings.TrimSuffix(s.url, "/mcp")

	// Health.
	out, status := curl(t, "-s", base+"/bridge/v1/health")
	if h := decodeJSON(t, out); status != 200 || h["status"] != "ok" || h["version"] != "9.9.9-test" || h["protocolVersion"] != "1" {
		t.Errorf("health: %d %s", status, out)
	}
	// Tools.
	out, status = curl(t, "-s", base+"/bridge/v1/tools")
	tools := decodeJSON(t, out)
	list, _ := tools["tools"].([]any)
	if status != 200 || len(list) != len(toolNames()) || !hexHash.MatchString(tools["hash"].(string)) {
		t.Fatalf("tools: %d %.300s", status, out)
	}
	for i, tool := range list {
		m := tool.(map[string]any)
		if m["name"] != toolNames()[i] || m["description"] == "" || m["inputSchema"].(map[string]any)["type"] != "object" {
			t.Errorf("tool %d = %v", i, m["name"])
		}
	}
	// The hash, computed again by the contract's own algorithm in Node.
	cmd := exec.CommandContext(t.Context(), node(t), "bridge-hash.mjs")
	cmd.Dir = clientsDir
	cmd.Stdin = strings.NewReader(out)
	hashOut, stderr, code := obsidiantest.RunCommand(t, cmd)
	if code != 0 || strings.TrimSpace(hashOut) != tools["hash"] {
		t.Errorf("the server's hash %v, the contract's algorithm in Node %q (exit %d, %s)", tools["hash"], hashOut, code, stderr)
	}
	// Tool call.
	out, status = curl(t, "-s", "-X", "POST", base+"/bridge/v1/tools/obsidian_read_note/call",
		"-H", "Content-Type: application/json",
		"-d", `{"arguments":{"path":"Notes/Example.md"}}`)
	call := decodeJSON(t, out)
	content, _ := call["content"].([]any)
	if status != 200 || call["success"] != true || len(content) == 0 || content[0].(map[string]any)["text"] != "# Example\nHello" {
		t.Errorf("call: %d %s", status, out)
	}

	// MCP Standard HTTP: list tools, call a tool.
	out, status = curl(t, "-s", "-X", "POST", base+"/mcp", "-H", "Content-Type: application/json", "-d", `{
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {}
  }`)
	if m := decodeJSON(t, out); status != 200 || m["id"] != float64(1) || len(m["result"].(map[string]any)["tools"].([]any)) != len(toolNames()) {
		t.Errorf("MCP tools/list: %d %.300s", status, out)
	}
	out, status = curl(t, "-s", "-X", "POST", base+"/mcp", "-H", "Content-Type: application/json", "-d", `{
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {
      "name": "obsidian_read_note",
      "arguments": {
        "path": "Notes/Example.md"
      }
    }
  }`)
	if m := decodeJSON(t, out); status != 200 || m["id"] != float64(2) || !strings.Contains(out, `"text":"# Example\nHello"`) {
		t.Errorf("MCP tools/call: %d %s", status, out)
	}
	s.stop(t)
}

// post sends a raw request and returns the status and decoded body.
func post(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	resp, data := httpRequest(t, method, url, body, nil)
	var m map[string]any
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
		t.Fatalf("%s %s: status %d, not JSON: %q", method, url, resp.StatusCode, data)
	}
	return resp.StatusCode, m
}

// TestBridgeV1Errors: the contract's statuses and error shapes, and a tool
// failure as a 200 answer with its code in the text.
func TestBridgeV1Errors(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, []string{"--backend", "native", "--vault-path", f.Vault})
	v1 := strings.TrimSuffix(s.url, "/mcp") + "/bridge/v1"
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"unknown tool", "POST", "/tools/nope/call", `{"arguments":{}}`, 404, "TOOL_NOT_FOUND"},
		{"missing required argument", "POST", "/tools/obsidian_search_notes/call", `{"arguments":{}}`, 400, "INVALID_ARGUMENTS"},
		{"arguments not an object", "POST", "/tools/obsidian_read_note/call", `{"arguments":["A.md"]}`, 400, "INVALID_REQUEST"},
		{"arguments null", "POST", "/tools/obsidian_read_note/call", `{"arguments":null}`, 400, "INVALID_REQUEST"},
		{"no arguments field", "POST", "/tools/obsidian_read_note/call", `{"path":"A.md"}`, 400, "INVALID_REQUEST"},
		{"not JSON", "POST", "/tools/obsidian_read_note/call", `path=A.md`, 400, "INVALID_REQUEST"},
		{"GET a call", "GET", "/tools/obsidian_read_note/call", ``, 405, "METHOD_NOT_ALLOWED"},
		{"POST the tools", "POST", "/tools", `{}`, 405, "METHOD_NOT_ALLOWED"},
		{"unknown path", "GET", "/nothing", ``, 404, "NOT_FOUND"},
		{"over 1 MiB", "POST", "/tools/obsidian_create_note/call", `{"arguments":{"path":"Big.md","content":"` + strings.Repeat("a", 2<<20) + `"}}`, 413, "REQUEST_TOO_LARGE"},
		{"path traversal", "POST", "/tools/obsidian_read_note/call", `{"arguments":{"path":"../outside.md"}}`, 400, "INVALID_ARGUMENTS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := post(t, tc.method, v1+tc.path, tc.body)
			if status != tc.status || m["error"] != tc.code || m["message"] == "" {
				t.Errorf("%d %v, want %d %s", status, m, tc.status, tc.code)
			}
			if tc.code == "INVALID_ARGUMENTS" && tc.name == "missing required argument" {
				if missing, _ := m["details"].(map[string]any)["missing"].([]any); len(missing) != 1 || missing[0] != "query" {
					t.Errorf("details.missing = %v", m["details"])
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(f.Vault, "Big.md")); err == nil {
		t.Error("the oversized create reached the tool")
	}
	status, m := post(t, "POST", v1+"/tools/obsidian_read_note/call", `{"arguments":{"path":"Missing.md"}}`)
	content, _ := m["content"].([]any)
	if status != 200 || m["success"] != false || m["isError"] != true || len(content) != 1 ||
		!strings.HasPrefix(content[0].(map[string]any)["text"].(string), "Error: note not found: Missing.md (FILE_NOT_FOUND, -32003)") {
		t.Errorf("a tool failure: %d %v", status, m)
	}
	// A name with a slash, URL-encoded, is one tool name (and unknown).
	if status, m := post(t, "POST", v1+"/tools/a%2Fb/call", `{"arguments":{}}`); status != 404 || m["error"] != "TOOL_NOT_FOUND" {
		t.Errorf("an encoded slash: %d %v", status, m)
	}
	s.stop(t)
}

// TestBridgeV1HashFollowsTheToolSet: the hash is stable, and changes when
// the tool set does (read-only mode leaves the write tools out).
func TestBridgeV1HashFollowsTheToolSet(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	hash := func(args ...string) (string, int) {
		s := serve(t, append([]string{"--backend", "native", "--vault-path", f.Vault}, args...))
		defer s.stop(t)
		_, a := post(t, "GET", strings.TrimSuffix(s.url, "/mcp")+"/bridge/v1/tools", "")
		_, b := post(t, "GET", strings.TrimSuffix(s.url, "/mcp")+"/bridge/v1/tools", "")
		if a["hash"] != b["hash"] {
			t.Errorf("two listings, two hashes: %v %v", a["hash"], b["hash"])
		}
		return a["hash"].(string), len(a["tools"].([]any))
	}
	full, n := hash()
	again, _ := hash()
	readOnly, m := hash("--read-only")
	if full != again {
		t.Errorf("a restart changed the hash: %s %s", full, again)
	}
	if readOnly == full || m >= n {
		t.Errorf("read-only mode: %d tools, hash %s; full: %d tools, hash %s", m, readOnly, n, full)
	}
}

// TestBridgeV1ReadOnlyRefusesBeforeArguments: in read-only mode a write
// tool is not listed, and a call to it, even one lacking a required
// argument, is the tool failure naming the setting, as on every transport.
func TestBridgeV1ReadOnlyRefusesBeforeArguments(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	s := serve(t, []string{"--backend", "native", "--vault-path", f.Vault, "--read-only"})
	v1 := strings.TrimSuffix(s.url, "/mcp") + "/bridge/v1"
	status, m := post(t, "POST", v1+"/tools/obsidian_daily_note/call", `{"arguments":{}}`)
	content, _ := m["content"].([]any)
	if status != 200 || m["success"] != false || len(content) != 1 ||
		!strings.Contains(content[0].(map[string]any)["text"].(string), "(PERMISSION_DENIED, -32005)") {
		t.Errorf("a write tool in read-only mode, without its arguments: %d %v", status, m)
	}
	// A listed tool lacking one is still refused with the argument named.
	if status, m := post(t, "POST", v1+"/tools/obsidian_search_notes/call", `{"arguments":{}}`); status != 400 || m["error"] != "INVALID_ARGUMENTS" {
		t.Errorf("a read tool without its arguments: %d %v", status, m)
	}
	s.stop(t)
}
