package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"A.md"}}}`,
	`{"params":{"a":1},"method":"ping","id":7.0,"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"x"}}`,
	`{"jsonrpc":"2.0","method":"exit"}`,
	`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`{"id":1e400,"method":"x"}`, `{"id":"\ud800","method":"x"}`, `{"id":`, "\xff\xfe", "",
}

// FuzzPeek: peek never panics, and what it reports of a message agrees with
// a full decode by encoding/json.
func FuzzPeek(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		got, ok := peek(msg)
		var full struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if !ok || json.Unmarshal(msg, &full) != nil {
			return // peek may accept a prefix of a broken message; mcp-go then refuses it
		}
		if got.id != "" && got.id != idKeyRaw(full.ID) {
			t.Fatalf("peek id %q, full decode %q (%s)", got.id, idKeyRaw(full.ID), full.ID)
		}
		if got.isRequest() && (full.Method == nil || *full.Method != got.method) {
			t.Fatalf("peek method %q, full decode %v", got.method, full.Method)
		}
	})
}

// FuzzInput: whatever the client writes, Input passes on each non-blank
// line once, newline-terminated and otherwise unchanged, in order, until
// the exit notification; and once every request it counted is answered
// through Output, nothing is pending.
func FuzzInput(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s + "\n" + s))
	}
	f.Add([]byte(strings.Join(messageSeeds, "\n")))
	f.Add([]byte("\n\n  \r\n" + messageSeeds[1]))
	f.Fuzz(func(t *testing.T, stream []byte) {
		// A request on the last line is still unanswered at end of input;
		// the drain's wait for it is cut short here and answered below.
		s := New(discard(), time.Millisecond)
		a := &answering{s: s, r: bytes.NewReader(stream)}
		got, err := io.ReadAll(s.Input(context.Background(), a))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.answer(); err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, line := range bytes.SplitAfter(stream, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if f, ok := peek(line); ok && json.Valid(line) && f.method == "exit" && f.id == "" {
				break
			}
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			want = append(want, line...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("passed on\n%q\nwant\n%q", got, want)
		}
	})
}

// answering is the client's stream; before each read it answers, through
// the session's Output, every request Input has counted so far, so that
// end of input does not wait.
type answering struct {
	s *Session
	r io.Reader
}

func (a *answering) Read(p []byte) (int, error) {
	if err := a.answer(); err != nil {
		return 0, err
	}
	return a.r.Read(p)
}

func (a *answering) answer() error {
	a.s.mu.Lock()
	var ids []string
	for key, n := range a.s.pending {
		for range n {
			ids = append(ids, key)
		}
	}
	a.s.mu.Unlock()
	out := a.s.Output(io.Discard)
	for _, key := range ids {
		raw := key[2:]
		if key[0] == 's' {
			b, _ := json.Marshal(raw)
			raw = string(b)
		}
		if _, err := out.Write([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"result":{}}` + "\n")); err != nil {
			return err
		}
	}
	if n := a.s.Pending(); n != 0 {
		return errors.New("requests still pending after their answers")
	}
	return nil
}
