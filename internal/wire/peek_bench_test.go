package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkPeek: what classifying one message costs, for a typical call in
// each client's member order and for a 10 MB note in params.
func BenchmarkPeek(b *testing.B) {
	note, _ := json.Marshal(strings.Repeat("note text, \"quoted\" and \\ escaped\n", 300_000)) // 10 MB of JSON
	for _, bc := range []struct{ name, msg string }{
		{"call_id_first", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Folder 01/Note 00012.md"}}}`},
		{"call_id_last", `{"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Folder 01/Note 00012.md"}},"jsonrpc":"2.0","id":12}`},
		{"result_2KB", `{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"` + strings.Repeat("note text ", 200) + `"}]}}`},
		{"create_10MB_id_last", `{"method":"tools/call","params":{"name":"obsidian_create_note","arguments":{"path":"Big.md","content":` + string(note) + `}},"jsonrpc":"2.0","id":13}`},
	} {
		msg := []byte(bc.msg)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if f, ok := peek(msg); !ok || f.id == "" {
					b.Fatal("not classified")
				}
			}
		})
	}
}
