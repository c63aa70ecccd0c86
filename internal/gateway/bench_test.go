package gateway

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
)

// BenchmarkAnswerFromServer is the command peer's cost per answer: the
// line the server wrote is read, matched to its waiting call, and given
// the client's id back. JSONValid, the floor, is one pass over the same
// line, as any reader of it pays.
func BenchmarkAnswerFromServer(b *testing.B) {
	for _, size := range []int{1 << 10, 100 << 10, 1 << 20, 10 << 20} {
		unit := "Obsidian note text, with \"quotes\", <tags> and a tab\t. "
		text := strings.Repeat(unit, size/len(unit)+1)[:size]
		result, _ := json.Marshal(map[string]any{"content": []map[string]any{{"type": "text", "text": text}}})
		line := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":17,"result":%s}`, result))
		b.Run(fmt.Sprintf("%dKB/route", size>>10), func(b *testing.B) {
			p := newCommandPeer(auth.Guard{Writes: auth.Writing}, Namespace{Name: "bench"}, "test", DefaultBackoff, DefaultMaxResponse, 0, slog.New(slog.DiscardHandler))
			pr := &proc{}
			var got []byte
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				p.pending[17] = &pendingCall{proc: pr, id: json.RawMessage(`"client-1"`), reply: func(a []byte) { got = a }, unwatch: func() bool { return true }}
				p.fromServer(pr, line)
			}
			if !strings.Contains(string(got), `"id":"client-1"`) {
				b.Fatalf("answer without the client's id: %.80s", got)
			}
		})
		b.Run(fmt.Sprintf("%dKB/JSONValid", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if !json.Valid(line) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
