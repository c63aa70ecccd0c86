package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// The envelope API (README, "Over HTTP"), through curl as the
// contract's examples are written (tool names and arguments adapted):
// HTTP 200 always, the envelope's required fields, both request forms,
// need_confirm until _confirm, AUTH_REQUIRED, and the health fields.

const envelopeKey = "envelope-test-key-0123456789"

// wantEnvelope checks the fields every answer carries.
func wantEnvelope(t *testing.T, what string, status int, m map[string]any, ok bool) {
	t.Helper()
	metrics, _ := m["metrics"].(map[string]any)
	meta, _ := m["meta"].(map[string]any)
	if status != 200 || m["ok"] != ok || m["summary"] == "" || metrics == nil || metrics["elapsed_ms"] == nil || metrics["exit_code"] == nil {
		t.Errorf("%s: status %d, envelope %v", what, status, m)
	}
	if meta == nil || meta["api_version"] != "v1" || meta["container_version"] != "9.9.9-test" {
		t.Errorf("%s: meta %v", what, meta)
	}
}

func TestEnvelopeCurlExamples(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Notes/Example.md", "# Example\nHello")
	s := serve(t, []string{"--backend", "native", "--vault-path", f.Vault}, "OBSIDIAN_MCP_API_KEY="+envelopeKey)
	base := strings.TrimSuffix(s.url, "/mcp")
	curlJSON := func(url, body string, key bool) (int, map[string]any) {
		t.Helper()
		args := []string{"-s", "-X", "POST", url, "-H", "Content-Type: application/json"}
		if key {
			args = append(args, "-H", "X-Api-Key: "+envelopeKey)
		}
		out, status := curl(t, append(args, "-d", body)...)
		return status, decodeJSON(t, out)
	}

	// Example 1: list tools.
	status, m := curlJSON(base+"/mcp", `{
    "id": "list-1",
    "method": "list_tools",
    "params": {}
  }`, true)
	wantEnvelope(t, "list_tools", status, m, true)
	tools, _ := m["result"].(map[string]any)["data"].(map[string]any)["tools"].([]any)
	if len(tools) != len(toolNames()) || m["id"] != "list-1" || !strings.HasPrefix(m["summary"].(string), "Available tools: ") {
		t.Errorf("list_tools: %v", m["summary"])
	}
	// Example 2: call a tool, direct form.
	status, m = curlJSON(base+"/mcp", `{
    "id": "read-1",
    "method": "call_tool",
    "name": "obsidian_read_note",
    "args": {"path": "Notes/Example.md"}
  }`, true)
	wantEnvelope(t, "call_tool direct", status, m, true)
	if m["stdout"] != "# Example\nHello" || m["result"].(map[string]any)["stdout"] != "# Example\nHello" {
		t.Errorf("call_tool direct: %v", m)
	}
	// Example 3: call a tool, params form, at /v1/mcp.
	status, m = curlJSON(base+"/v1/mcp", `{
    "id": "info-2",
    "method": "call_tool",
    "params": {
      "name": "obsidian_file_info",
      "args": {"path": "Notes/Example.md"}
    }
  }`, true)
	wantEnvelope(t, "call_tool params", status, m, true)
	if data, _ := m["data"].(map[string]any); data["size"] != float64(len("# Example\nHello")) {
		t.Errorf("call_tool params: data %v", m["data"])
	}
	// Example 4: a mutating tool needs confirmation, then runs with it.
	status, m = curlJSON(base+"/mcp", `{"id":"del-1","method":"call_tool","name":"obsidian_delete_note","args":{"path":"Notes/Example.md"}}`, true)
	wantEnvelope(t, "need_confirm", status, m, false)
	nc, _ := m["result"].(map[string]any)["need_confirm"].(map[string]any)
	if m["need_confirm"] != true || nc["required"] != true || nc["details"].(map[string]any)["required_arg"] != "_confirm" ||
		m["metrics"].(map[string]any)["exit_code"] != float64(1) {
		t.Errorf("need_confirm: %v", m)
	}
	if _, ok := f.Note("Notes/Example.md"); !ok {
		t.Fatal("the unconfirmed delete ran")
	}
	status, m = curlJSON(base+"/mcp", `{"id":"del-2","method":"call_tool","name":"obsidian_delete_note","args":{"path":"Notes/Example.md","_confirm":"yes"}}`, true)
	wantEnvelope(t, "confirmed delete", status, m, true)
	if _, ok := f.Note("Notes/Example.md"); ok {
		t.Error("the confirmed delete did not run")
	}
	// A tool failure: our code, message and hint.
	status, m = curlJSON(base+"/mcp", `{"method":"call_tool","name":"obsidian_read_note","args":{"path":"Notes/Example.md"}}`, true)
	wantEnvelope(t, "tool failure", status, m, false)
	detail, _ := m["error_detail"].(map[string]any)
	if detail["code"] != "FILE_NOT_FOUND" || !strings.Contains(m["error"].(string), "note not found") || detail["details"].(map[string]any)["hint"] == "" {
		t.Errorf("tool failure: %v", m)
	}
	// Validation: an unknown method, worded as the contract's clients
	// look for it (BurlyMCP's: "validation" in error_detail.summary).
	status, m = curlJSON(base+"/mcp", `{"id":"x","method":"run_tool"}`, true)
	wantEnvelope(t, "invalid method", status, m, false)
	if !strings.Contains(m["error"].(string), "Method must be one of: ['list_tools', 'call_tool']") ||
		m["error_detail"].(map[string]any)["summary"] != "Request validation failed" {
		t.Errorf("invalid method: %v", m)
	}
	// A body over the limit on the envelope's endpoint: its 200 envelope.
	big := `{"method":"call_tool","name":"obsidian_read_note","args":{"path":"` + strings.Repeat("x", 5<<20) + `"}}`
	bigFile := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(bigFile, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	out, status := curl(t, "-s", "-X", "POST", base+"/v1/mcp", "-H", "Content-Type: application/json", "-H", "X-Api-Key: "+envelopeKey, "--data-binary", "@"+bigFile)
	m = decodeJSON(t, out)
	wantEnvelope(t, "oversized", status, m, false)
	if !strings.Contains(strings.ToLower(m["error"].(string)), "exceeds maximum size") {
		t.Errorf("an oversized request: %v", m)
	}
	// meta.git_sha is never empty.
	if meta, _ := m["meta"].(map[string]any); meta["git_sha"] == nil || meta["git_sha"] == "" {
		t.Errorf("meta without git_sha: %v", m["meta"])
	}
	// Authentication: no key is a 200 AUTH_REQUIRED envelope on its
	// endpoints; JSON-RPC at /mcp is 401.
	for _, path := range []string{"/mcp", "/v1/mcp"} {
		status, m = curlJSON(base+path, `{"id":"list-1","method":"list_tools","params":{}}`, false)
		if status != 200 || m["ok"] != false || m["error_detail"].(map[string]any)["code"] != "AUTH_REQUIRED" ||
			m["summary"] != "Authentication required" || m["metrics"].(map[string]any)["exit_code"] != float64(1) {
			t.Errorf("%s without the key: %d %v", path, status, m)
		}
	}
	if out, status := curl(t, "-s", base+"/health"); status != 200 || !strings.Contains(out, "AUTH_REQUIRED") {
		t.Errorf("/health without the key: %d %s", status, out)
	}
	if status, _ := curlJSON(base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false); status != 401 {
		t.Errorf("JSON-RPC without the key: %d, want 401", status)
	}
	// Health.
	for _, path := range []string{"/health", "/v1/health"} {
		out, status := curl(t, "-s", base+path, "-H", "X-Api-Key: "+envelopeKey)
		h := decodeJSON(t, out)
		if status != 200 || h["status"] != "ok" || h["server_name"] != "obsidian-mcp" || h["version"] != "9.9.9-test" ||
			h["tools_available"] != float64(len(toolNames())) || h["policy_loaded"] != true || h["strict_security_mode"] != true ||
			h["docker_available"] != false || h["notifications_enabled"] != false || h["uptime_seconds"] == nil {
			t.Errorf("%s: %d %s", path, status, out)
		}
	}
	s.stop(t)
}

// TestEnvelopeHealthDegraded: with the app unreachable and no vault folder,
// /health says degraded, and why.
func TestEnvelopeHealthDegraded(t *testing.T) {
	outside(t)
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{NotRunning: true})
	s := serve(t, []string{"--backend", "auto"}, "OBSIDIAN_BIN="+f.Bin)
	out, status := curl(t, "-s", strings.TrimSuffix(s.url, "/mcp")+"/health")
	h := decodeJSON(t, out)
	if status != 200 || h["status"] != "degraded" || !strings.Contains(h["reason"].(string), "no vault folder") || h["strict_security_mode"] != false {
		t.Errorf("health with the app closed and no folder: %d %s", status, out)
	}
	s.stop(t)
}
