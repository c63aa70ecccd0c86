package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
)

// wait bounds every wait here: a hang fails instead of blocking.
const wait = 20 * time.Second

// newCore serves tools named as in the client recordings: a call for
// A.md hangs until it is cancelled (the recordings cancel those), others
// answer at once. hung counts the calls that hang.
func newCore(hung *atomic.Int32) *protocol.Core {
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	handler := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetString("path", "") == "A.md" {
			hung.Add(1)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return mcp.NewToolResultText("ok"), nil
	}
	for _, name := range []string{"obsidian_read_note", "obsidian_file_info", "echo"} {
		s.AddTool(mcp.NewTool(name, mcp.WithString("path")), handler)
	}
	return protocol.New(s, protocol.Options{})
}

// serve runs Serve over input to the end and returns what it wrote.
func serve(t *testing.T, core *protocol.Core, input string, opts stdio.Options) string {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), core, strings.NewReader(input), &out, opts) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(wait):
		t.Fatal("Serve did not return")
	}
	return out.String()
}

// answers counts the answers in out by id, checking each line is one
// JSON object.
func answers(t *testing.T, out string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var msgs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if strings.HasPrefix(line, "[") {
			if err := json.Unmarshal([]byte(line), &msgs); err != nil {
				t.Fatalf("not one JSON batch a line: %q", line)
			}
		} else {
			msgs = msgs[:0:0]
			msgs = append(msgs, struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}{})
			if err := json.Unmarshal([]byte(line), &msgs[0]); err != nil {
				t.Fatalf("not one JSON object a line: %q", line)
			}
		}
		for _, m := range msgs {
			if m.Method == "" {
				n[string(m.ID)]++
			}
		}
	}
	return n
}

// TestRealClientTranscripts plays what real clients wrote, byte for byte:
// testdata/clients holds one recording per client and version (the
// official Go and TypeScript SDKs, the MCP Inspector), taken with tee
// between the client and the server while cmd/obsidian-mcp's client
// tests ran. Each orders members its own way (the TypeScript SDK and the
// Inspector put the id last) and closes its input right after writing.
// Every request must be answered exactly once before Serve returns, except
// a cancelled one, which is not answered at all.
func TestRealClientTranscripts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "clients", "*.jsonl"))
	if len(files) < 4 {
		t.Fatalf("want the recordings of the three clients, found %v", files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			stream, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			cancelled := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(string(stream)), "\n") {
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Params struct {
						RequestID json.RawMessage `json:"requestId"`
					} `json:"params"`
				}
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				if m.ID != nil {
					want[string(m.ID)]++
				}
				if m.Method == "notifications/cancelled" {
					cancelled[string(m.Params.RequestID)] = true
				}
			}
			for id := range cancelled {
				delete(want, id)
			}
			var hung atomic.Int32
			got := answers(t, serve(t, newCore(&hung), string(stream), stdio.Options{DrainTimeout: wait}))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("answers by id %v, want %v (cancelled: %v)", got, want, cancelled)
			}
			if len(cancelled) > 0 && hung.Load() == 0 && strings.Contains(string(stream), `"A.md"`) {
				t.Log("the cancelled call was cancelled before it started")
			}
		})
	}
}

// TestFraming: blank lines get no answer, a last line without its '\n'
// does, and exit ends the input.
func TestFraming(t *testing.T) {
	var hung atomic.Int32
	core := newCore(&hung)
	out := serve(t, core, "\n  \r\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`, stdio.Options{DrainTimeout: wait})
	if got := answers(t, out); fmt.Sprint(got) != "map[1:1 2:1]" {
		t.Errorf("answers %v:\n%s", got, out)
	}
	out = serve(t, newCore(&hung), `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","method":"exit"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", stdio.Options{DrainTimeout: wait})
	if got := answers(t, out); fmt.Sprint(got) != "map[1:1]" {
		t.Errorf("after exit: answers %v:\n%s", got, out)
	}
}

// TestLineLimit: a message over MaxLine is not kept and is answered with
// -32600 saying so, under its id when its head holds one (a string or a
// number, before the long member or after, within the head); the messages
// around it are served as usual, the last line without its '\n' too.
func TestLineLimit(t *testing.T) {
	var hung atomic.Int32
	big := strings.Repeat("x", 200<<10) // past the limit and the head kept
	input := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"echo","arguments":{"path":"` + big + `"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"path":"` + big + `"}},"id":3}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"path":"` + big + `"}}}`
	out := serve(t, newCore(&hung), input, stdio.Options{DrainTimeout: wait, MaxLine: 100 << 10})
	var lines []map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %.200s", l)
		}
		lines = append(lines, m)
	}
	got := map[string]string{}
	for _, m := range lines {
		got[string(m["id"])] = string(m["result"]) + string(m["error"])
	}
	for id, want := range map[string]string{
		`1`: `{}`, `4`: `{}`,
		`"big-1"`: `"code":-32600`, `5`: `"code":-32600`,
		// Its id comes after the long member: answered without one.
		`null`: `over the limit of 102400 for one message`,
	} {
		if !strings.Contains(got[id], want) {
			t.Errorf("answer to %s: %s, want %q\nall: %v", id, got[id], want, got)
		}
	}
	if !strings.Contains(got[`"big-1"`], fmt.Sprintf("the message is %d bytes", len(big)+101)) {
		t.Errorf("the size is not the message's: %s", got[`"big-1"`])
	}
	if len(lines) != 5 {
		t.Errorf("%d answers for 5 messages:\n%.500s", len(lines), out)
	}
}

// TestEOFAnswersEverything: calls written at once, then end of input:
// each is answered before Serve returns (mcp-go dropped queued ones).
func TestEOFAnswersEverything(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n", i)
	}
	var hung atomic.Int32
	got := answers(t, serve(t, newCore(&hung), b.String(), stdio.Options{DrainTimeout: wait}))
	if len(got) != 50 {
		t.Errorf("%d of 50 calls answered", len(got))
	}
}

// TestEOFWaitIsBounded: a call that never ends cannot keep the process
// alive past DrainTimeout; it is cancelled.
func TestEOFWaitIsBounded(t *testing.T) {
	var hung atomic.Int32
	out := serve(t, newCore(&hung), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"A.md"}}}`+"\n", stdio.Options{DrainTimeout: 50 * time.Millisecond})
	if hung.Load() != 1 {
		t.Errorf("the call ran %d times", hung.Load())
	}
	if got := answers(t, out); got["1"] != 1 {
		t.Errorf("the timed-out call got no answer: %q", out)
	}
}

// TestClientGone: a client that is gone at end of input (its output
// closed) stops its calls at once instead of after DrainTimeout, whether
// it is found gone at once or while the answers are awaited.
func TestClientGone(t *testing.T) {
	for name, checks := range map[string]int32{"already gone": 0, "goes while draining": 2} {
		t.Run(name, func(t *testing.T) {
			var hung atomic.Int32
			var asked atomic.Int32
			gone := func() bool { return asked.Add(1) > checks }
			// serve fails the test if Serve waits anywhere near the hour.
			out := serve(t, newCore(&hung), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"A.md"}}}`+"\n",
				stdio.Options{DrainTimeout: time.Hour, Gone: gone})
			if asked.Load() <= checks {
				t.Errorf("Gone asked %d times", asked.Load())
			}
			if hung.Load() > 1 {
				t.Errorf("the call ran %d times", hung.Load())
			}
			if out != "" {
				t.Errorf("answered a client that is gone: %q", out)
			}
		})
	}
}

// TestClientGoneWhileInputOpen: a client closes its end of the output
// while a call hangs, keeps its input open and sends nothing more. No
// write fails, as none is made; the output found closed stops the call
// and Serve returns. (A server that learnt of it only from a failed write
// ran on until the call timed out: a test that closed the output and sent
// one ping hung for a minute when its one answer was written while a
// process forked by the test still held the output's other end.)
func TestClientGoneWhileInputOpen(t *testing.T) {
	var hung atomic.Int32
	var asked atomic.Int32
	gone := func() bool { return asked.Add(1) > 2 } // closed at the third look
	var out bytes.Buffer
	serveInputOpen(t, newCore(&hung), &out, stdio.Options{DrainTimeout: time.Hour, Gone: gone}, hungCall)
	if hung.Load() != 1 || asked.Load() != 3 {
		t.Errorf("the call ran %d times; Gone asked %d times, want 1 and 3", hung.Load(), asked.Load())
	}
	if out.Len() != 0 {
		t.Errorf("answered a client that is gone: %q", out.String())
	}
}

// failing is an output that breaks after n writes.
type failing struct{ n atomic.Int32 }

func (f *failing) Write(p []byte) (int, error) {
	if f.n.Add(-1) < 0 {
		return 0, errors.New("broken pipe")
	}
	return len(p), nil
}

// TestWriteFailureStops: when an answer cannot be written, the client is
// gone: Serve cancels what runs and returns without waiting for input.
func TestWriteFailureStops(t *testing.T) {
	var hung atomic.Int32
	serveInputOpen(t, newCore(&hung), &failing{}, stdio.Options{DrainTimeout: time.Hour}, hungCall+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
}

// hungCall is a call that hangs until it is cancelled (newCore).
const hungCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"A.md"}}}` + "\n"

// serveInputOpen runs Serve on an input that writes input and stays open,
// and fails the test unless Serve returns, with nil, within wait: the
// client must be found gone without the end of its input.
func serveInputOpen(t *testing.T, core *protocol.Core, out io.Writer, opts stdio.Options, input string) {
	t.Helper()
	in, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), core, in, out, opts) }()
	if _, err := io.WriteString(inW, input); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(wait):
		t.Fatalf("Serve still runs %v after its client went away", wait)
	}
}

// FuzzServe: whatever a client writes, Serve returns, every line it
// writes is one JSON object (or batch), and with no cancellation in the
// stream every request read before exit is answered, and no line more
// than once.
func FuzzServe(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"method":"tools/call","params":{"name":"echo","arguments":{}},"jsonrpc":"2.0","id":3}`,
		`{"params":{},"method":"ping","id":7.0,"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"id":1e400,"method":"x"}`, `{"id":"\ud800","method":"ping"}`, `{"id":`, "\xff\xfe", "",
	}
	for _, s := range seeds {
		f.Add(s + "\n" + s)
	}
	f.Add(strings.Join(seeds, "\n"))
	f.Fuzz(func(t *testing.T, stream string) {
		var hung atomic.Int32
		got := answers(t, serve(t, newCore(&hung), stream, stdio.Options{DrainTimeout: time.Second}))
		if strings.Contains(stream, "cancel") || strings.Contains(stream, "A.md") || strings.Contains(stream, "[") {
			// A cancelled or hung request is rightly unanswered, and a
			// batch's items are answered per the revision in use.
			return
		}
		want, lines := map[string]int{}, map[string]int{}
		for _, line := range strings.Split(stream, "\n") {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method *string         `json:"method"`
			}
			line = strings.TrimSpace(line)
			if line == "" || line[0] != '{' || json.Unmarshal([]byte(line), &m) != nil {
				continue
			}
			if m.Method != nil && *m.Method == "exit" && m.ID == nil {
				break
			}
			if m.ID == nil || !isID(m.ID) {
				continue
			}
			lines[canonical(m.ID)]++
			if m.Method != nil && *m.Method != "" {
				want[canonical(m.ID)]++
			}
		}
		for id, n := range want {
			if c := countCanonical(got, id); c < n || c > lines[id] {
				t.Fatalf("id %s: %d answers to %d requests in %d lines\n%q", id, c, n, lines[id], stream)
			}
		}
	})
}

func isID(raw json.RawMessage) bool {
	if raw[0] == '"' {
		return true
	}
	_, err := strconv.ParseFloat(string(raw), 64)
	return err == nil
}

// canonical is an id as mcp-go echoes it: numbers re-encoded.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func countCanonical(got map[string]int, id string) int {
	n := 0
	for k, c := range got {
		if canonical(json.RawMessage(k)) == id {
			n += c
		}
	}
	return n
}

// TestEOFEndsListens: a subscriptions/listen (MCP 2026-07-28) lasts as
// long as its client listens; once the input ends, it is answered and the
// transport returns, rather than wait for a client that is gone (the MCP
// Inspector closes its input, then kills the server two seconds later).
func TestEOFEndsListens(t *testing.T) {
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1", server.WithHooks(hooks), server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	in := `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}` + "\n"
	out := serve(t, protocol.New(s, protocol.Options{}), in, stdio.Options{DrainTimeout: time.Hour})
	if !strings.Contains(out, `"method":"notifications/subscriptions/acknowledged"`) || answers(t, out)[`"l"`] != 1 {
		t.Errorf("the listen was not acknowledged and answered: %q", out)
	}
}
