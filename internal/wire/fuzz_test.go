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
	`{"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"A.md"}},"jsonrpc":"2.0","id":3}`, // TypeScript SDK order
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"x"}}`,
	`{"jsonrpc":"2.0","method":"exit"}`,
	`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`{"id":1e400,"method":"x"}`, `{"id":"\ud800","method":"x"}`, `{"id":`, "\xff\xfe", "",
}

// FuzzPeek: peek never panics; on every JSON object it reports what a full
// decode by encoding/json (mcp-go's decoder) finds; and what it reports
// does not change when the members come in another order or with other
// whitespace between the tokens. order drives the shuffle and the spacing.
func FuzzPeek(f *testing.F) {
	for i, s := range messageSeeds {
		f.Add([]byte(s), []byte{byte(i), 3, 1, 2, 0})
	}
	f.Fuzz(func(t *testing.T, msg, order []byte) {
		got, ok := peek(msg)
		if !json.Valid(msg) {
			return // Input refuses it whatever peek says
		}
		want, isObject := decodeFacts(msg)
		if ok != isObject {
			t.Fatalf("peek ok=%v for %q; a full decode says object=%v", ok, msg, isObject)
		}
		if !ok {
			return
		}
		if got.id != want.id || got.method != want.method || got.cancelled != want.cancelled ||
			got.hasResult != want.hasResult || got.hasError != want.hasError {
			t.Fatalf("peek(%q)\n got %+v\nwant %+v (full decode)", msg, got, want)
		}
		if shuffled, ok := reorder(msg, order); ok {
			again, ok := peek(shuffled)
			if !ok || again.id != got.id || again.method != got.method || again.cancelled != got.cancelled ||
				again.hasResult != got.hasResult || again.hasError != got.hasError || string(again.rawID) != string(got.rawID) {
				t.Fatalf("peek depends on member order or spacing:\n%q: %+v\n%q: %+v", msg, got, shuffled, again)
			}
		}
	})
}

// decodeFacts is what encoding/json makes of a message, decoded into the
// field types mcp-go uses (a string method, so null leaves it empty).
// isObject is false for anything but a JSON object.
func decodeFacts(msg []byte) (f facts, isObject bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(msg, &members) != nil || members == nil { // null decodes to a nil map
		return f, false
	}
	var full struct {
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &full) != nil {
		return f, true
	}
	method, decodable := methodMember(msg)
	if !decodable {
		return facts{}, false // mcp-go cannot decode it; peek refuses it
	}
	_ = json.Unmarshal(method, &f.method)
	f.rawID, f.id = full.ID, idKeyRaw(full.ID)
	f.hasResult, f.hasError = full.Result != nil, full.Error != nil
	if f.method == "notifications/cancelled" && full.Params != nil {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(full.Params, &p) == nil {
			f.cancelled = idKeyRaw(p.RequestID)
		}
	}
	return f, true
}

// methodMember is the method as a string field gets it from encoding/json:
// the last member named like "method" whose value is not null (a null
// leaves a string as it was, which a RawMessage field cannot show), or
// null. decodable is false when any such member is neither a string nor
// null: the string field's type error fails mcp-go's whole decode, even
// when a later member is a string.
func methodMember(msg []byte) (last json.RawMessage, decodable bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	last = json.RawMessage("null")
	if _, err := dec.Token(); err != nil {
		return last, true
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return last, true
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return last, true
		}
		if key, _ := tok.(string); !strings.EqualFold(key, "method") || string(v) == "null" {
			continue
		}
		if v[0] != '"' {
			return nil, false
		}
		last = v
	}
	return last, true
}

// reorder rewrites a JSON object with its members shuffled and random
// whitespace between the tokens, both driven by order. It declines
// objects with two members of equally folding names, whose order matters.
func reorder(msg, order []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	type kv struct {
		key []byte
		val json.RawMessage
	}
	var kvs []kv
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		for _, o := range kvs {
			var k string
			_ = json.Unmarshal(o.key, &k)
			if strings.EqualFold(k, key) {
				return nil, false
			}
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		k, _ := json.Marshal(key)
		kvs = append(kvs, kv{k, v})
	}
	next := 0
	pick := func(n int) int {
		if len(order) == 0 || n <= 1 {
			return 0
		}
		next++
		return int(order[next%len(order)]) % n
	}
	for i := len(kvs) - 1; i > 0; i-- {
		j := pick(i + 1)
		kvs[i], kvs[j] = kvs[j], kvs[i]
	}
	space := func() string { return []string{"", " ", "\t", "\r\n", "  \n"}[pick(5)] }
	var b bytes.Buffer
	b.WriteString(space() + "{")
	for i, m := range kvs {
		if i > 0 {
			b.WriteString(space() + ",")
		}
		b.WriteString(space())
		b.Write(m.key)
		b.WriteString(space() + ":" + space())
		b.Write(m.val)
	}
	b.WriteString(space() + "}" + space())
	return b.Bytes(), true
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
