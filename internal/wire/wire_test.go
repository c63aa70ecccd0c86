package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestPeek(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 1<<20)
	tests := []struct {
		msg                  string
		id, method, cancelID string
		request, response    bool
		hasError, ok         bool
	}{
		{msg: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, id: "n:1", method: "tools/call", request: true, ok: true},
		{msg: `{"params":{"a":1},"method":"ping","id":"abc","jsonrpc":"2.0"}`, id: "s:abc", method: "ping", request: true, ok: true},
		{msg: `{"jsonrpc":"2.0","id":7.0,"result":{"content":"` + huge + `"}}`, id: "n:7", response: true, ok: true},
		{msg: `{"jsonrpc":"2.0","id":"7","error":{"code":-32603,"message":"x"}}`, id: "s:7", response: true, hasError: true, ok: true},
		{msg: `{"result":{},"jsonrpc":"2.0","id":3}`, id: "n:3", response: true, ok: true},
		{msg: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized", ok: true},
		{msg: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"x"}}`, method: "notifications/cancelled", cancelID: "n:5", ok: true},
		{msg: `{"jsonrpc":"2.0","params":{"requestId":"q"},"method":"notifications/cancelled"}`, method: "notifications/cancelled", cancelID: "s:q", ok: true},
		{msg: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, hasError: true, ok: true},
		{msg: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, method: "ping", ok: true},
		{msg: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, method: "ping", ok: true},
		// The official TypeScript SDK's order: the id comes last, after params.
		{msg: `{"method":"tools/call","params":{"name":"x","arguments":{"path":"A.md"}},"jsonrpc":"2.0","id":4}`, id: "n:4", method: "tools/call", request: true, ok: true},
		{msg: `{"method":"tools/call","params":{"content":"` + huge + `"},"jsonrpc":"2.0","id":"big"}`, id: "s:big", method: "tools/call", request: true, ok: true},
		{msg: `{"method":"notifications/cancelled","params":{"requestId":4,"reason":"x"},"jsonrpc":"2.0"}`, method: "notifications/cancelled", cancelID: "n:4", ok: true},
		{msg: " {\t\"params\" : {} ,\r\n \"method\"\n:\"ping\" , \"id\" : 8 } ", id: "n:8", method: "ping", request: true, ok: true},
		{msg: `{"error":{"code":1,"message":"x"},"id":9,"jsonrpc":"2.0"}`, id: "n:9", response: true, hasError: true, ok: true},
		// Matched as encoding/json matches mcp-go's structs: case and
		// Unicode folding, escapes, the last duplicate, a null method.
		{msg: `{"METHOD":"ping","Id":5}`, id: "n:5", method: "ping", request: true, ok: true},
		{msg: `{"\u0069d":6,"method":"tools\/call"}`, id: "n:6", method: "tools/call", request: true, ok: true},
		{msg: `{"method":"notifications/cancelled","paramſ":{"requeſtId":"k"}}`, method: "notifications/cancelled", cancelID: "s:k", ok: true},
		{msg: `{"id":1,"method":"ping","id":null}`, method: "ping", ok: true},
		{msg: `{"id":null,"method":"ping","ID":2}`, id: "n:2", method: "ping", request: true, ok: true},
		{msg: `{"method":"ping","method":null,"id":3}`, id: "n:3", method: "ping", request: true, ok: true},
		{msg: `{"id":"a\"}b","method":"x\\"}`, id: `s:a"}b`, method: `x\`, request: true, ok: true},
		{msg: `{}`, ok: true},
		{msg: `{"method":7,"id":1}`},
		{msg: `{"id":}`},
		{msg: `{"id":1,}`},
		{msg: `{"id" 1}`},
		{msg: `{"a":"unterminated}`},
		{msg: `[1,2]`},
		{msg: `not json`},
		{msg: `{"id":`},
	}
	for _, tt := range tests {
		f, ok := peek([]byte(tt.msg))
		name := tt.msg
		if len(name) > 60 {
			name = name[:60]
		}
		if ok != tt.ok || f.id != tt.id || f.method != tt.method || f.cancelled != tt.cancelID ||
			f.isRequest() != tt.request || f.isResponse() != tt.response || f.hasError != tt.hasError {
			t.Errorf("peek(%s) = %+v ok=%v", name, f, ok)
		}
	}
	if idKey(float64(7)) != idKeyRaw(json.RawMessage("7")) || idKey("7") == idKey(float64(7)) || idKey(mcp.NewRequestId("a")) != "s:a" {
		t.Error("hook ids and wire ids must share keys, and 7 must differ from \"7\"")
	}
}

func TestInputFraming(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Second)
	in := "\n  \n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n\n" + `{"jsonrpc":"2.0","method":"notifications/x"}` // no final newline
	got, err := io.ReadAll(s.Input(t.Context(), strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/x"}` + "\n"
	if string(got) != want {
		t.Errorf("input = %q, want blank lines skipped and the last line terminated: %q", got, want)
	}
}

func TestInputExitStopsReading(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Second)
	in := `{"jsonrpc":"2.0","method":"exit"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	got, err := io.ReadAll(s.Input(t.Context(), strings.NewReader(in)))
	if err != nil || len(got) != 0 || s.Pending() != 0 {
		t.Errorf("after exit: read %q, err %v, pending %d; want nothing more read", got, err, s.Pending())
	}
}

// TestEOFWaitsForAnswers: end of input is withheld until every request read
// has its response written.
func TestEOFWaitsForAnswers(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Minute)
	var lines []string
	for i := 1; i <= 3; i++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+string(rune('0'+i))+`,"method":"tools/call","params":{}}`)
	}
	r := s.Input(t.Context(), strings.NewReader(strings.Join(lines, "\n")))
	var out bytes.Buffer
	w := s.Output(&out)
	eof := make(chan struct{})
	go func() {
		_, _ = io.ReadAll(r)
		close(eof)
	}()
	for deadline := time.Now().Add(10 * time.Second); s.Pending() != 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pending = %d after 10 s, want 3", s.Pending())
		}
	}
	for i := 1; i <= 3; i++ {
		select {
		case <-eof:
			t.Fatalf("EOF delivered with %d requests unanswered", 4-i)
		case <-time.After(20 * time.Millisecond):
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"result":{}}` + "\n"))
	}
	select {
	case <-eof:
	case <-time.After(10 * time.Second):
		t.Fatal("EOF not delivered 10 s after every request was answered")
	}
	if s.Pending() != 0 {
		t.Errorf("pending = %d", s.Pending())
	}
}

func TestEOFWaitIsBounded(t *testing.T) {
	t.Parallel()
	s := New(discard(), 50*time.Millisecond)
	r := s.Input(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen"}`+"\n"))
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s2 := New(discard(), time.Hour)
	if _, err := io.ReadAll(s2.Input(ctx, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x"}`+"\n"))); err != nil {
		t.Fatal(err)
	}
}

func TestOutputRewritesToolErrors(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Second)
	_, _ = io.ReadAll(s.Input(t.Context(), strings.NewReader(
		`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`+"\n"+`{"jsonrpc":"2.0","id":"3","method":"tools/call"}`+"\n"+
			`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`+"\n")))
	e := errors.E(errors.AmbiguousName, "the name \"Plan\" matches 2 notes")
	e.Candidates = []string{"a/Plan.md", "b/Plan.md"}
	s.OnError(t.Context(), float64(3), mcp.MethodToolsCall, nil, &wrapped{e})
	s.OnError(t.Context(), float64(4), mcp.MethodInitialize, nil, e) // not a tool call: untouched
	var out bytes.Buffer
	w := s.Output(&out)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"the name..."}}` + "\n"))
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"3","error":{"code":-32603,"message":"other"}}` + "\n"))
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"plain"}}` + "\n"))
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32004,"message":"the name \"Plan\" matches 2 notes","data":{"candidates":["a/Plan.md","b/Plan.md"],"errorCode":"AMBIGUOUS_NAME","hint":"Call again with ` + "`path`" + ` set to one of ` + "`data.candidates`" + `."}}}`,
		`{"jsonrpc":"2.0","id":"3","error":{"code":-32603,"message":"other"}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"plain"}}`,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if s.Pending() != 0 {
		t.Errorf("pending = %d after all answers", s.Pending())
	}
}

// TestOutputSubstitutes: Answer and Reject replace mcp-go's response for
// their request only, once, keeping the id as the client sent it.
func TestOutputSubstitutes(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Second)
	_, _ = io.ReadAll(s.Input(t.Context(), strings.NewReader(
		`{"jsonrpc":"2.0","id":"a","method":"tools/call"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"resources/read"}`+"\n"+
			`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`+"\n")))
	s.Answer("a", json.RawMessage(`{ "content": [], "isError": true }`))
	s.Reject(float64(2), json.RawMessage(`{"code":-32002,"message":"gone","data":{"uri":"x"}}`))
	var out bytes.Buffer
	w := s.Output(&out)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"tool 'x' not found"}}` + "\n"))
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"contents":[]}}` + "\n"))
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"plain"}}` + "\n"))
	want := `{"jsonrpc":"2.0","id":"a","result":{"content":[],"isError":true}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"gone","data":{"uri":"x"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"plain"}}` + "\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if s.Pending() != 0 || len(s.results) != 0 {
		t.Errorf("pending = %d, substitutes kept = %d", s.Pending(), len(s.results))
	}
}

// wrapped stands for mcp-go's requestError, which wraps the handler's error.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return "request error: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func TestOutputDropsCancelledAnswers(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Second)
	_, _ = io.ReadAll(s.Input(t.Context(), strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`+"\n")))
	var out bytes.Buffer
	w := s.Output(&out)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"context canceled"}}` + "\n"))
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"))
	if got := out.String(); got != `{"jsonrpc":"2.0","id":2,"result":{}}`+"\n" {
		t.Errorf("output = %q, want only the uncancelled answer", got)
	}
	if s.Pending() != 0 {
		t.Errorf("pending = %d", s.Pending())
	}
}

func TestOutputSerialisesWrites(t *testing.T) {
	t.Parallel()
	s := New(discard(), time.Second)
	var out bytes.Buffer
	w := s.Output(&out)
	var wg sync.WaitGroup
	msg := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"` + strings.Repeat("y", 10000) + `"}}` + "\n"
	for i := 0; i < 50; i++ {
		wg.Go(func() { _, _ = w.Write([]byte(msg)) })
	}
	wg.Wait()
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line+"\n" != msg {
			t.Fatal("interleaved write")
		}
	}
}

// TestMalformedRequestNotCounted: a line that begins like a request but is
// not JSON is answered by mcp-go with an id-less parse error, so it must
// not be awaited at end of input (found by FuzzServe).
func TestMalformedRequestNotCounted(t *testing.T) {
	s := New(discard(), time.Minute)
	in := s.Input(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"`+"\xff\n"))
	if _, err := io.ReadAll(in); err != nil {
		t.Fatal(err)
	}
	if s.Pending() != 0 {
		t.Fatalf("the malformed line was counted: %d pending", s.Pending())
	}
}

// TestDisconnectAtEOF: input ends with a request pending and nobody
// reads the output any more. Whether the output is already closed at end
// of input or closes a little later (clients close their two pipes one
// after the other), the session stops its requests instead of waiting the
// drain timeout for them.
func TestDisconnectAtEOF(t *testing.T) {
	for name, closeAfter := range map[string]time.Duration{"already closed": 0, "closes while draining": 500 * time.Millisecond} {
		t.Run(name, func(t *testing.T) {
			s := New(discard(), time.Minute)
			stopped := make(chan struct{})
			start := time.Now()
			s.OnDisconnect(func() { close(stopped) }, func() bool { return time.Since(start) >= closeAfter })
			in := s.Input(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`+"\n"))
			done := make(chan error, 1)
			go func() { _, err := io.ReadAll(in); done <- err }()
			select {
			case <-stopped:
			case <-time.After(30 * time.Second): // a hang guard, far below the minute's drain
				t.Fatal("the session kept waiting for a client that is gone")
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if !s.Lost() {
				t.Error("Lost() is false after the client went away")
			}
		})
	}
}

// TestDefer: initialize and ping pass while the deferred work has not
// run; the first other request waits for it; the first answer written
// starts it in the background.
func TestDefer(t *testing.T) {
	s := New(discard(), time.Second)
	release := make(chan struct{})
	var ran atomic.Int32
	s.Defer(func() { <-release; ran.Add(1) })
	pr, pw := io.Pipe()
	in := bufio.NewReader(s.Input(context.Background(), pr))
	go func() {
		fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		pw.Close()
	}()
	for _, want := range []string{`"id":1`, `"id":2`} {
		line, err := in.ReadString('\n')
		if err != nil || !strings.Contains(line, want) {
			t.Fatalf("got %q, %v; want the line with %s at once", line, err, want)
		}
	}
	got := make(chan string)
	go func() { line, _ := in.ReadString('\n'); got <- line }()
	select {
	case line := <-got:
		t.Fatalf("tools/list passed before the deferred work ran: %q", line)
	case <-time.After(50 * time.Millisecond):
	}
	// The answer to initialize starts the work; it finishes once released.
	if _, err := s.Output(io.Discard).Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	close(release)
	if line := <-got; !strings.Contains(line, `"id":3`) {
		t.Fatalf("got %q after the work ran", line)
	}
	if ran.Load() != 1 {
		t.Fatalf("the deferred work ran %d times", ran.Load())
	}
}
