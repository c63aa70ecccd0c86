package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// wait bounds every wait in these tests: a hang fails instead of blocking.
const wait = 20 * time.Second

// fixture is a core on a server with tools that exercise it, and what its
// tools saw.
type fixture struct {
	core    *protocol.Core
	started chan string // hang's id, when it starts
	stopped chan string // hang's id, when its context ended
}

func newFixture(t *testing.T, opts protocol.Options) *fixture {
	t.Helper()
	f := &fixture{started: make(chan string, 16), stopped: make(chan string, 16)}
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("missing"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.E(errors.FileNotFound, "no note at A.md").With("path", "A.md")
	})
	s.AddTool(mcp.NewTool("failed"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return protocol.ToolFailure(errors.E(errors.FileExists, "a note already exists at B.md").With("path", "B.md")), nil
	})
	s.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("an error of no kind")
	})
	s.AddTool(mcp.NewTool("panic"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	s.AddTool(mcp.NewTool("hang", mcp.WithString("tag")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tag := req.GetString("tag", "")
		f.started <- tag
		<-ctx.Done()
		f.stopped <- tag
		return nil, ctx.Err()
	})
	s.AddTool(mcp.NewTool("progress", mcp.WithNumber("n")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := range req.GetInt("n", 0) {
			if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": i}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	// A resource and a prompt that hang as the tool does: their reads are
	// bounded by the workers too.
	s.AddResource(mcp.NewResource("test://hang", "hang"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		f.started <- "resource"
		<-ctx.Done()
		f.stopped <- "resource"
		return nil, ctx.Err()
	})
	s.AddPrompt(mcp.NewPrompt("hang"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		f.started <- "prompt"
		<-ctx.Done()
		f.stopped <- "prompt"
		return nil, ctx.Err()
	})
	f.core = protocol.New(s, opts)
	return f
}

// client is one session's view from the transport: what reached the sink
// and the replies, in one order.
type client struct {
	t    *testing.T
	sess *protocol.Session
	mu   sync.Mutex
	seen []string // "note <msg>" or "reply <msg>"
}

func (f *fixture) open(t *testing.T, id string) *client {
	t.Helper()
	c := &client{t: t}
	sess, err := f.core.Open(id, func(msg []byte) error {
		c.mu.Lock()
		c.seen = append(c.seen, "note "+string(msg))
		c.mu.Unlock()
		return nil
	}, protocol.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	c.sess = sess
	return c
}

// reset forgets what was seen so far.
func (c *client) reset() {
	c.mu.Lock()
	c.seen = nil
	c.mu.Unlock()
}

// snapshot is what was seen since reset.
func (c *client) snapshot() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// send hands msg to the session and returns a channel with its reply.
func (c *client) send(msg string) <-chan []byte {
	got := make(chan []byte, 1)
	c.sess.Receive(context.Background(), []byte(msg), func(b []byte) {
		c.mu.Lock()
		c.seen = append(c.seen, "reply "+string(b))
		c.mu.Unlock()
		got <- b
	})
	return got
}

// roundTrip sends msg and waits for its reply.
func (c *client) roundTrip(msg string) []byte {
	c.t.Helper()
	select {
	case b := <-c.send(msg):
		return b
	case <-time.After(wait):
		c.t.Fatalf("no reply to %s", msg)
		return nil
	}
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("waited %s for %s", wait, what)
		var zero T
		return zero
	}
}

func call(id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestAnswers: each failure is answered as the contract says, with the
// request's id as the client wrote it.
func TestAnswers(t *testing.T) {
	f := newFixture(t, protocol.Options{})
	c := f.open(t, "s")
	tests := []struct{ msg, want string }{
		{call(`"abc"`, "echo", `{"text":"hi"}`), `{"jsonrpc":"2.0","id":"abc","result":{"content":[{"type":"text","text":"hi"}]}}`},
		// A typed error keeps its code and data, where mcp-go says -32603.
		{call(`7`, "missing", `{}`), `{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"no note at A.md","data":{"errorCode":"FILE_NOT_FOUND","hint":"Check the path (exact, vault-relative`},
		// A failure carried back in the handler's result: the same.
		{call(`14`, "failed", `{}`), `{"jsonrpc":"2.0","id":14,"error":{"code":-32000,"message":"a note already exists at B.md","data":{"errorCode":"FILE_EXISTS"`},
		{call(`"x"`, "plain", `{}`), `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"an error of no kind"}}`},
		{call(`8`, "panic", `{}`), `"id":8,"error":{"code":-32603`},
		{call(`9`, "nope", `{}`), `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"tool 'nope' not found: tool not found"}}`},
		{`{"jsonrpc":"2.0","id":10,"method":"no/such"}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32601,"message":"Method no/such not found"}}`},
		{`{"jsonrpc":"2.0","id":11,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not valid JSON"}}`},
		{`"ping"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON-RPC object"}}`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or a number"}}`},
		// mcp-go cannot decode it and answers with a null id; the core
		// read the id, so the client can match the answer.
		{`{"jsonrpc":{},"id":13,"method":"ping"}`, `{"jsonrpc":"2.0","id":13,"error":{"code":-32700,"message":"Failed to parse message"}}`},
		{`{"jsonrpc":"2.0","id":12}`, `{"jsonrpc":"2.0","id":12,"error":{"code":-32600,"message":"Invalid Request: the message has no \"method\""}}`},
	}
	for _, tt := range tests {
		got := string(c.roundTrip(tt.msg))
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s\n got %s\nwant %s", tt.msg, got, tt.want)
		}
	}
	// Notifications and answers to no question get no reply.
	for _, msg := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":99,"result":{}}`} {
		if got := c.roundTrip(msg); got != nil {
			t.Errorf("%s was answered: %s", msg, got)
		}
	}
}

// TestSubstituteAndFail: a transport's substitute answer replaces an
// error, and Fail makes an answered request fail.
func TestSubstituteAndFail(t *testing.T) {
	f := newFixture(t, protocol.Options{Substitute: func(fl protocol.Failure) (any, bool) {
		if fl.Method != mcp.MethodToolsCall || !errors.Is(fl.Err, server.ErrToolNotFound) {
			return nil, false
		}
		return mcp.NewToolResultError("no such tool: " + fl.Message.(*mcp.CallToolRequest).Params.Name), true
	}})
	c := f.open(t, "s")
	if got, want := string(c.roundTrip(call("1", "nope", "{}"))), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no such tool: nope"}],"isError":true}}`; got != want {
		t.Errorf("substituted: %s, want %s", got, want)
	}
	// A 2026-07-28 request's substituted result says resultType, as
	// mcp-go's own results do from that revision on.
	modern := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
	if got := string(c.roundTrip(modern)); !strings.Contains(got, `"resultType":"complete"`) || !strings.Contains(got, "no such tool: nope") {
		t.Errorf("substituted on 2026-07-28: %s", got)
	}
	if got := string(c.roundTrip(call("2", "missing", "{}"))); !strings.Contains(got, `"code":-32003`) {
		t.Errorf("a typed error the substitute left alone: %s", got)
	}
	if protocol.Fail(context.Background(), errors.E(errors.Internal, "x")) {
		t.Error("Fail outside a request reported true")
	}
}

// TestCancellation: a cancelled call that runs sees its context end, one
// still waiting for a worker never starts, and neither is answered; the
// session counts both as pending until then.
func TestCancellation(t *testing.T) {
	f := newFixture(t, protocol.Options{Workers: 1})
	c := f.open(t, "s")
	running := c.send(call("1", "hang", `{"tag":"running"}`))
	if tag := receive(t, f.started, "the running call"); tag != "running" {
		t.Fatalf("started %q", tag)
	}
	queued := c.send(call(`"q"`, "hang", `{"tag":"queued"}`))
	if n := c.sess.Pending(); n != 2 {
		t.Errorf("%d pending, want 2", n)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}}`)
	if b := receive(t, queued, "the queued call's reply"); b != nil {
		t.Errorf("the cancelled queued call was answered: %s", b)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	if tag := receive(t, f.stopped, "the running call to stop"); tag != "running" {
		t.Errorf("stopped %q", tag)
	}
	if b := receive(t, running, "the running call's reply"); b != nil {
		t.Errorf("the cancelled running call was answered: %s", b)
	}
	receive(t, c.sess.Idle(), "the session to be idle")
	// The queued call never started: its tag was never sent, and the
	// one worker is free for the next call.
	if got := string(c.roundTrip(call("3", "echo", `{"text":"next"}`))); !strings.Contains(got, "next") {
		t.Errorf("after the cancellations: %s", got)
	}
	select {
	case tag := <-f.started:
		t.Errorf("%q started after its cancellation", tag)
	default:
	}
}

// TestReadsTakeWorkers: resources/read and prompts/get wait for a worker
// as tool calls do, so that a client asking for a large note many times
// has at most Workers answers made at once; tools/list does not wait.
func TestReadsTakeWorkers(t *testing.T) {
	f := newFixture(t, protocol.Options{Workers: 1})
	c := f.open(t, "s")
	running := c.send(call("1", "hang", `{"tag":"tool"}`))
	receive(t, f.started, "the running call")
	read := c.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://hang"}}`)
	prompt := c.send(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"hang"}}`)
	deadline := time.Now().Add(wait)
	for f.core.Waiting() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait for the one worker, want 2 (the read and the prompt)", f.core.Waiting())
		}
		time.Sleep(time.Millisecond)
	}
	// Both wait, so neither can have started.
	select {
	case what := <-f.started:
		t.Fatalf("%s started while the one worker was busy", what)
	default:
	}
	if got := string(c.roundTrip(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)); !strings.Contains(got, `"hang"`) {
		t.Errorf("tools/list while the worker is busy: %s", got)
	}
	// Each ends in turn, and the next takes the worker.
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	receive(t, f.stopped, "the call to stop")
	receive(t, running, "the call's end")
	for range 2 {
		what := receive(t, f.started, "the next read")
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, map[string]int{"resource": 2, "prompt": 3}[what]))
		receive(t, f.stopped, "its end")
	}
	receive(t, read, "the read's end")
	receive(t, prompt, "the prompt's end")
	if n := f.core.Waiting(); n != 0 {
		t.Errorf("%d still waiting", n)
	}
}

// TestCloseStopsCalls: a session's end cancels what it was running.
func TestCloseStopsCalls(t *testing.T) {
	f := newFixture(t, protocol.Options{})
	c := f.open(t, "s")
	reply := c.send(call("1", "hang", `{"tag":"a"}`))
	receive(t, f.started, "the call")
	c.sess.Close()
	receive(t, f.stopped, "the call to stop")
	receive(t, reply, "the reply")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	f.core.Wait(ctx)
	if ctx.Err() != nil {
		t.Error("Core.Wait did not return once every request was answered")
	}
}

// TestNotificationsBeforeTheirAnswer: what a call sends while it runs
// reaches the client before the call's answer. mcp-go queues
// notifications on a channel a second goroutine writes out, so without the
// core's flush they can come after (the issue saw it with
// subscriptions/listen's acknowledgement on stdio).
func TestNotificationsBeforeTheirAnswer(t *testing.T) {
	f := newFixture(t, protocol.Options{})
	c := f.open(t, "s")
	c.roundTrip(fmt.Sprintf(initialize, "2025-06-18"))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range 200 {
		c.reset()
		c.roundTrip(call(fmt.Sprint(i), "progress", `{"n":3}`))
		if seen := c.snapshot(); len(seen) != 4 || !strings.HasPrefix(seen[3], "reply ") {
			t.Fatalf("run %d: the answer came before the call's notifications:\n%s", i, strings.Join(seen, "\n"))
		}
	}
}

// TestSubscriptionsListenAcknowledgedFirst: on 2026-07-28, the
// acknowledgement of subscriptions/listen comes before its result.
func TestSubscriptionsListenAcknowledgedFirst(t *testing.T) {
	f := newFixture(t, protocol.Options{})
	c := f.open(t, "s")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	for i := range 50 {
		c.reset()
		got := c.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{},%s}}`, i, meta))
		if !strings.Contains(string(got), `"result"`) {
			t.Fatalf("subscriptions/listen: %s", got)
		}
		if seen := c.snapshot(); len(seen) != 2 || !strings.Contains(seen[0], "notifications/subscriptions/acknowledged") {
			t.Fatalf("run %d: want the acknowledgement, then the result:\n%s", i, strings.Join(seen, "\n"))
		}
	}
}

// TestBatches: processed on 2025-03-26 (and when no revision is known),
// refused with -32600 on every other revision.
func TestBatches(t *testing.T) {
	batch := `[` + call("1", "echo", `{"text":"a"}`) + `,{"jsonrpc":"2.0","method":"notifications/initialized"},` + call("2", "echo", `{"text":"b"}`) + `]`
	modern := `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}]`
	tests := []struct {
		name, revision, header, batch, want string
	}{
		{"2025-03-26", "2025-03-26", "", batch, `[{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}},{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b"}]}}]`},
		{"no revision known", "", "", batch, `"text":"b"`},
		{"2025-06-18", "2025-06-18", "", batch, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: MCP revision 2025-06-18 has no JSON-RPC batches (only 2025-03-26 has); send each message on its own"}}`},
		{"header says 2025-11-25", "", "2025-11-25", batch, `MCP revision 2025-11-25 has no JSON-RPC batches`},
		{"items say 2026-07-28", "", "", modern, `MCP revision 2026-07-28 has no JSON-RPC batches`},
		{"empty", "2025-03-26", "", `[]`, `"code":-32600,"message":"Invalid Request: a batch must be a non-empty array`},
		{"not JSON", "2025-03-26", "", `[{`, `"code":-32700`},
		{"over max_batch", "2025-03-26", "", "[" + strings.Repeat(call("1", "echo", `{"text":"a"}`)+",", 3) + call("2", "echo", `{"text":"b"}`) + "]",
			`"code":-32600,"message":"Invalid Request: a batch of 4 messages is over the limit of 3 (max_batch): send at most 3 in one batch"`},
		{"answers over their bound", "2025-03-26", "", `[` + call("1", "echo", `{"text":"`+strings.Repeat("x", 600)+`"}`) + `,` + call("2", "echo", `{"text":"`+strings.Repeat("y", 600)+`"}`) + `]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"the batch's answers add up to more than 1000 bytes (limits.max_response)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, protocol.Options{MaxBatch: 3, MaxBatchBytes: 1000})
			c := f.open(t, "s")
			if tt.revision != "" {
				c.roundTrip(fmt.Sprintf(initialize, tt.revision))
			}
			ctx := context.Background()
			if tt.header != "" {
				ctx = protocol.WithRevision(ctx, tt.header)
			}
			got := make(chan []byte, 1)
			c.sess.Receive(ctx, []byte(tt.batch), func(b []byte) { got <- b })
			if b := string(receive(t, got, "the batch's reply")); !strings.Contains(b, tt.want) {
				t.Errorf("got %s\nwant %s", b, tt.want)
			}
		})
	}
	f := newFixture(t, protocol.Options{})
	c := f.open(t, "s")
	if b := c.roundTrip(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`); b != nil {
		t.Errorf("a batch of notifications was answered: %s", b)
	}
	// A batch sent right behind initialize, before initialize has run:
	// the revision the client asked for already rules it out (a batch of
	// notifications under 2025-06-18 went unanswered, processed as if no
	// revision were known).
	f = newFixture(t, protocol.Options{})
	c = f.open(t, "s")
	initialized := make(chan []byte, 1)
	c.sess.Receive(context.Background(), []byte(fmt.Sprintf(initialize, "2025-06-18")), func(b []byte) { initialized <- b })
	got := make(chan []byte, 1)
	c.sess.Receive(context.Background(), []byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`), func(b []byte) { got <- b })
	if b := string(receive(t, got, "the batch's reply")); !strings.Contains(b, "MCP revision 2025-06-18 has no JSON-RPC batches") {
		t.Errorf("a batch right behind initialize: %q", b)
	}
	receive(t, initialized, "initialize's answer")
}

// TestDefer: initialize is answered before the deferred work runs; a
// request that needs it waits for it (here, a tool the work registers).
func TestDefer(t *testing.T) {
	f := newFixture(t, protocol.Options{})
	started, release := make(chan struct{}), make(chan struct{})
	f.core.Defer(func() {
		close(started)
		<-release
		f.core.Server().AddTool(mcp.NewTool("late"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("registered in time"), nil
		})
	})
	c := f.open(t, "s")
	if got := c.roundTrip(fmt.Sprintf(initialize, "2025-06-18")); !json.Valid(got) || !strings.Contains(string(got), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %s", got)
	}
	// The answer to initialize started the work in the background.
	receive(t, started, "the deferred work to start")
	reply := make(chan []byte, 1)
	go func() { reply <- c.roundTrip(call("2", "late", "{}")) }()
	close(release)
	if got := string(receive(t, reply, "the call")); !strings.Contains(got, "registered in time") {
		t.Errorf("the call did not wait for the deferred work: %s", got)
	}
}

// TestToolFailureNeedsNoHook: a tool's failure returned as ToolFailure is
// answered with its own code and data by a core, and by the in-process
// Caller, on a server without the core's hooks: it comes back in the
// result, not through the OnError hook and a context slot. A plain error
// on that server is mcp-go's -32603.
func TestToolFailureNeedsNoHook(t *testing.T) {
	s := server.NewMCPServer("test", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("failed"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return protocol.ToolFailure(errors.E(errors.FileExists, "a note already exists at B.md")), nil
	})
	s.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.E(errors.FileExists, "a note already exists at B.md")
	})
	_, err := (&protocol.Caller{Server: s}).Call(t.Context(), "failed", map[string]any{})
	if e := errors.From(err); err == nil || e.Kind != errors.FileExists {
		t.Errorf("Caller: %v, want FILE_EXISTS", err)
	}
	sess, err := protocol.New(s, protocol.Options{}).Open("s", func([]byte) error { return nil }, protocol.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	for tool, want := range map[string]string{"failed": `"code":-32000,"message":"a note already exists at B.md","data":{"errorCode":"FILE_EXISTS"`, "plain": `"code":-32603`} {
		got := make(chan []byte, 1)
		sess.Receive(t.Context(), []byte(call(`1`, tool, `{}`)), func(b []byte) { got <- b })
		if out := string(receive(t, got, tool)); !strings.Contains(out, want) {
			t.Errorf("%s: %s, want %s", tool, out, want)
		}
	}
}
