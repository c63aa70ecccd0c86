package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// FuzzServe: whatever lines a client writes, the server ends cleanly at
// end of input and answers every well-formed request exactly once (none
// lost, none doubled), in the native backend on a real folder.
func FuzzServe(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Welcome.md"}}}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"obsidian_create_note","arguments":{"path":"New.md","content":"x"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"obsidian_move_note","arguments":{"name":"Welcome","to":"Archive/"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"bogus"}`, `{"jsonrpc":"2.0","id":8,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":9,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":10,"method":"ping"}]`, `not json`, `{"id":`, "\xff",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(strings.Join(seeds, "\n"))
	vault := f.TempDir()
	for p, content := range map[string]string{"Welcome.md": "# Welcome\n[[Plan]]\n", "Projects/Plan.md": "# Plan\n", "Archive/Old.md": "old\n"} {
		if err := os.MkdirAll(filepath.Join(vault, filepath.Dir(p)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vault, p), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	cfg := vaultserver.Config{Backend: backend.Native, VaultPath: vault, Timeout: 5 * time.Second, ToolErrors: vaultserver.ToolErrorsProtocol, LogLevel: slog.LevelError}
	f.Fuzz(func(t *testing.T, input string) {
		if strings.Contains(input, "notifications/cancelled") || strings.Contains(input, `"exit"`) {
			t.Skip() // these legitimately suppress answers; other tests cover them
		}
		want, batched := map[string]int{}, map[string]int{}
		for _, line := range strings.Split(input, "\n") {
			if id, ok := wellFormedRequest(line); ok {
				want[id]++
			}
			// A batch's requests are answered or refused as a whole,
			// per the revision in use.
			var items []json.RawMessage
			if json.Unmarshal([]byte(line), &items) == nil {
				for _, item := range items {
					if id, ok := wellFormedRequest(string(item)); ok {
						batched[id]++
					}
				}
			}
		}
		var out obsidiantest.Buffer
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if err := Serve(ctx, cfg, strings.NewReader(input), &out, NewLogger(&obsidiantest.Buffer{}, slog.LevelError), "fuzz"); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		got := map[string]int{}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			type answer struct {
				ID json.RawMessage `json:"id"`
			}
			if line == "" {
				continue
			}
			// A batch (processed on revision 2025-03-26) is answered
			// with an array on one line.
			var ms []answer
			if strings.HasPrefix(line, "[") {
				if err := json.Unmarshal([]byte(line), &ms); err != nil {
					t.Fatalf("stdout carried a line that is not a JSON batch: %q", line)
				}
			} else {
				ms = append(ms, answer{})
				if err := json.Unmarshal([]byte(line), &ms[0]); err != nil {
					t.Fatalf("stdout carried a line that is not JSON: %q", line)
				}
			}
			for _, m := range ms {
				if len(m.ID) > 0 && string(m.ID) != "null" {
					got[string(m.ID)]++
				}
			}
		}
		for id, n := range want {
			if got[id] < n || got[id] > n+batched[id] {
				t.Fatalf("request id %s: %d answers, want %d\ninput: %q\noutput: %s", id, got[id], n, input, out.String())
			}
		}
	})
}

// wellFormedRequest reports a JSON-RPC 2.0 request with a small integer or
// string id, which the server must answer, and its id as written back.
func wellFormedRequest(line string) (string, bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.JSONRPC != "2.0" || m.Method == nil || len(m.ID) == 0 {
		return "", false
	}
	var id any
	if json.Unmarshal(m.ID, &id) != nil {
		return "", false
	}
	switch v := id.(type) {
	case string:
		b, _ := json.Marshal(v)
		return string(b), true
	case float64:
		if v == float64(int32(v)) {
			b, _ := json.Marshal(int32(v))
			return string(b), true
		}
	}
	return "", false
}
