package vaultserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestElicitationBeforeMultiRoundTrip: a client on a protocol before
// 2026-07-28 that can show forms is asked with an elicitation/create
// request in the middle of the call (mcp-go bridges the tool's "input
// required" answer to it). Its "no" deletes nothing; its "yes" deletes.
func TestElicitationBeforeMultiRoundTrip(t *testing.T) {
	for _, answer := range []string{`{"action":"decline"}`, `{"action":"accept","content":{"confirm":true}}`} {
		f := obsidiantest.Install(t, obsidiantest.Scenario{})
		obsidiantest.Fixture(f)
		s := startServer(t, testConfig(f))
		s.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"old","version":"1"}}}`)
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_delete_note","arguments":{"path":"Welcome.md","permanent":true}}}`)
		var ask struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(s.read()), &ask); err != nil || ask.Method != "elicitation/create" ||
			ask.Params.Message != "Delete Welcome.md (39 bytes) permanently? It will not go to the trash and cannot be restored." {
			t.Fatalf("want an elicitation/create request, got %+v (%v)", ask, err)
		}
		s.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + answer + `}`)
		got := s.read()
		_, there := f.Note("Welcome.md")
		if strings.Contains(answer, "accept") {
			if !strings.Contains(got, `"permanent":true`) || there {
				t.Errorf("accepted: %s; note still there: %v", got, there)
			}
		} else if !strings.Contains(got, `"code":-32005`) || !strings.Contains(got, "did not confirm") || !there {
			t.Errorf("declined: %s; note still there: %v", got, there)
		}
	}
}
