package bridge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge/upstream"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// standIn is a scripted HTTP server as the bridge meets them: MCP at /mcp
// (session-less, as the ObsiScripta plugin speaks it: initialize answers
// -32601) and the Bridge Protocol v1, with a tool set the test changes, a
// call script, and a real listener that can go away and come back.
type standIn struct {
	t *testing.T

	mu    sync.Mutex
	tools []map[string]any
	// reorder writes every tool's keys in reverse order (MCP answers): the
	// same tools, other bytes.
	reorder bool
	// mcp answers POST /mcp; false: 404 with an HTML page, as a server
	// without MCP would.
	mcp bool
	// answer scripts tools/call (both transports); nil: an echo.
	answer func(w http.ResponseWriter, r *http.Request, name string, args json.RawMessage)
	calls  map[string]int
	// cancels counts notifications/cancelled received.
	cancels atomic.Int64

	addr string
	srv  *http.Server
}

func newStandIn(t *testing.T, tools ...map[string]any) *standIn {
	t.Helper()
	s := &standIn{t: t, tools: tools, mcp: true, calls: map[string]int{}}
	s.start(t, "127.0.0.1:0")
	t.Cleanup(s.stop)
	return s
}

func tool(name, desc string) map[string]any {
	return map[string]any{"name": name, "description": desc,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}
}

func (s *standIn) start(t *testing.T, addr string) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port of a server just stopped may take a moment
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.addr = ln.Addr().String()
	s.srv = &http.Server{Handler: s}
	srv := s.srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// stop closes the listener and every connection: the server is gone.
func (s *standIn) stop() {
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (s *standIn) url() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "http://" + s.addr
}

func (s *standIn) setTools(tools ...map[string]any) {
	s.mu.Lock()
	s.tools = tools
	s.mu.Unlock()
}

func (s *standIn) callCount(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	tools, reorder, hasMCP, answer := s.tools, s.reorder, s.mcp, s.answer
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/mcp" && hasMCP:
		s.serveMCP(w, r, tools, reorder, answer)
	case r.URL.Path == "/bridge/v1/health":
		writeJSON(w, 200, map[string]any{"status": "ok", "version": "1.0.0", "protocolVersion": "1"})
	case r.URL.Path == "/bridge/v1/tools":
		data, _ := json.Marshal(tools)
		sum := sha256.Sum256(data)
		writeJSON(w, 200, map[string]any{"tools": tools, "hash": hex.EncodeToString(sum[:])})
	case strings.HasPrefix(r.URL.Path, "/bridge/v1/tools/") && strings.HasSuffix(r.URL.Path, "/call"):
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/bridge/v1/tools/"), "/call")
		var body struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.count(name)
		if answer != nil {
			answer(w, r, name, body.Arguments)
			return
		}
		writeJSON(w, 200, map[string]any{"success": true, "content": []any{map[string]any{"type": "text", "text": "v1 echo " + string(body.Arguments)}}})
	default:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<html>not here</html>")
	}
}

func (s *standIn) count(name string) {
	s.mu.Lock()
	s.calls[name]++
	s.mu.Unlock()
}

func (s *standIn) serveMCP(w http.ResponseWriter, r *http.Request, tools []map[string]any, reorder bool, answer func(http.ResponseWriter, *http.Request, string, json.RawMessage)) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		w.WriteHeader(400)
		return
	}
	reply := func(result any) {
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
	switch msg.Method {
	case "initialize":
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
	case "notifications/cancelled":
		s.cancels.Add(1)
		w.WriteHeader(http.StatusAccepted)
	case "tools/list":
		if !reorder {
			reply(map[string]any{"tools": tools})
			return
		}
		// The same tools with their keys written in reverse order.
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"tools":[`)
		for i, t := range tools {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"description":` + quote(t["description"]) + `,"name":` + quote(t["name"]) + `}`)
		}
		b.WriteString(`]}}`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b.Bytes())
	case "tools/call":
		s.count(msg.Params.Name)
		if answer != nil {
			answer(w, r, msg.Params.Name, msg.Params.Arguments)
			return
		}
		reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo " + string(msg.Params.Arguments)}}})
	default:
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
	}
}

func quote(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// logs are a bridge's log lines, read while it runs.
type logs struct{ obsidiantest.Buffer }

func (l *logs) count(s string) int { return strings.Count(l.String(), s) }

// waitFor returns once the bridge has logged s.
func (l *logs) waitFor(t *testing.T, s string) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, "the log line "+s, func() bool { return l.count(s) > 0 })
}

// waitPolls returns once the bridge has polled the server n more times:
// what they would have changed has happened by then, with no wait for an
// absence.
func (l *logs) waitPolls(t *testing.T, n int) {
	t.Helper()
	from := l.count("polled the server's tools")
	testenv.Eventually(t, 10*time.Second, fmt.Sprintf("%d polls", n), func() bool { return l.count("polled the server's tools") >= from+n })
}

// client is a stdio client of a running bridge: it writes requests and
// collects every line the bridge writes.
type client struct {
	t   *testing.T
	in  *io.PipeWriter
	mu  sync.Mutex
	got []map[string]json.RawMessage
	new chan struct{}
	id  int
	// done is closed when Serve returned, with its error.
	done chan error
	// eof is closed when the bridge's output has been read to its end.
	eof chan struct{}
}

// oneStdio lets one bridge serve stdio at a time: mcp-go's stdio session is
// a package global, so two in one process deliver each other's
// notifications.
var oneStdio sync.Mutex

// run serves b to a client, initialized.
func run(t *testing.T, b *Bridge) *client {
	t.Helper()
	oneStdio.Lock()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, new: make(chan struct{}, 1), done: make(chan error, 1), eof: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := b.Serve(ctx, inR, outW, nil)
		_ = outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.eof)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the bridge wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			c.mu.Lock()
			c.got = append(c.got, m)
			c.mu.Unlock()
			select {
			case c.new <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("the bridge did not stop")
		}
		oneStdio.Unlock()
	})
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

// finish closes the client's end of input and waits for the bridge to
// answer what it read, exit, and have its last line read: c.got then holds
// every message the bridge will ever write, so a test can check that one
// never came without sleeping on it.
func (c *client) finish() {
	c.t.Helper()
	_ = c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			c.t.Errorf("Serve = %v", err)
		}
		c.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		c.t.Fatal("the bridge did not exit at end of input")
	}
	select {
	case <-c.eof:
	case <-time.After(10 * time.Second):
		c.t.Fatal("the bridge's output never ended")
	}
}

func (c *client) send(msg any) {
	c.t.Helper()
	line, _ := json.Marshal(msg)
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// start sends a request and returns its id without waiting.
func (c *client) start(method string, params any) int {
	c.mu.Lock()
	c.id++
	id := c.id
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id
}

// wait returns the answer to request id.
func (c *client) wait(id int) map[string]json.RawMessage {
	c.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		c.mu.Lock()
		for _, m := range c.got {
			if string(m["id"]) == fmt.Sprint(id) {
				c.mu.Unlock()
				return m
			}
		}
		c.mu.Unlock()
		select {
		case <-c.new:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no answer to request %d", id)
		}
	}
}

func (c *client) request(method string, params any) map[string]json.RawMessage {
	c.t.Helper()
	return c.wait(c.start(method, params))
}

// notifications counts the notifications of method received so far.
func (c *client) notifications(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.got {
		if string(m["method"]) == `"`+method+`"` {
			n++
		}
	}
	return n
}

// callText calls a tool and returns its first text and isError.
func (c *client) callText(name string, args any) (string, bool) {
	c.t.Helper()
	ans := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(ans["result"], &res); err != nil || len(res.Content) == 0 {
		c.t.Fatalf("call %s: not a result with content: %s", name, ans["result"])
	}
	return res.Content[0].Text, res.IsError
}

func (c *client) toolNames() []string {
	c.t.Helper()
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.request("tools/list", nil)["result"], &res); err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}

// newBridge makes a bridge to s over transport ("mcp", "v1" or "auto"),
// polling fast; run serves it (its first contact finds s up).
func newBridge(t *testing.T, s *standIn, transport string, l *logs, o Options) *Bridge {
	t.Helper()
	up := upstreamFor(s, transport)
	o.Logger = slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if o.Poll == 0 {
		o.Poll = 20 * time.Millisecond
	}
	if o.Backoff.Attempts == 0 {
		o.Backoff = Backoff{First: time.Millisecond, Max: 5 * time.Millisecond, Attempts: 5}
	}
	o.Target = s.url
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the bridge's log:\n%s", l)
		}
	})
	if o.FirstContact == 0 {
		o.FirstContact = 10 * time.Second // a busy machine's loopback
	}
	return New(up, o)
}

func upstreamFor(s *standIn, transport string) Upstream {
	m := &upstream.MCP{URL: s.url() + "/mcp", HTTP: http.DefaultClient, ClientName: "test", ClientVersion: "1"}
	v := &upstream.V1{Base: s.url(), HTTP: http.DefaultClient}
	switch transport {
	case "mcp":
		return m
	case "v1":
		return v
	}
	return &upstream.Auto{MCP: m, V1: v}
}

// TestListChangedOncePerChange: each real change of the tool set is one
// notifications/tools/list_changed, in both transports; polls that find
// the same set, or the same tools with their keys in another order, are
// none.
func TestListChangedOncePerChange(t *testing.T) {
	for _, transport := range []string{"mcp", "v1"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			s := newStandIn(t, tool("a", "first"))
			var l logs
			b := newBridge(t, s, transport, &l, Options{})
			c := run(t, b)
			if got := c.toolNames(); fmt.Sprint(got) != "[a]" {
				t.Fatalf("tools = %v", got)
			}
			s.setTools(tool("a", "first"), tool("b", "second"))
			testenv.Eventually(t, 10*time.Second, "list_changed after a tool was added", func() bool {
				return c.notifications("notifications/tools/list_changed") == 1 && l.count("tools changed") == 1
			})
			if got := c.toolNames(); fmt.Sprint(got) != "[a b]" {
				t.Errorf("tools after the change = %v", got)
			}
			// Same tools, keys reordered (MCP): several polls, no notification.
			s.mu.Lock()
			s.reorder = transport == "mcp"
			s.mu.Unlock()
			l.waitPolls(t, 3)
			if n := c.notifications("notifications/tools/list_changed"); n != 1 {
				t.Errorf("%d list_changed after polls that found the same tools", n)
			}
			if l.count("tools changed") != 1 {
				t.Errorf("a reordering was taken for a change:\n%s", l.String())
			}
			s.setTools(tool("b", "second, reworded"))
			testenv.Eventually(t, 10*time.Second, "list_changed after a description changed and a tool went", func() bool { return c.notifications("notifications/tools/list_changed") == 2 })
			l.waitPolls(t, 3)
			if n := c.notifications("notifications/tools/list_changed"); n != 2 {
				t.Errorf("%d list_changed for 2 changes", n)
			}
			if text, isErr := c.callText("a", map[string]any{}); !isErr || text != "Error: Tool 'a' not found" {
				t.Errorf("a removed tool: %q isError=%v", text, isErr)
			}
			if s.callCount("a") != 0 {
				t.Error("a call to a tool not in the set reached the server")
			}
		})
	}
}

// TestCallFailures: every way a call can fail is an isError result in
// words, and the server ran it exactly once.
func TestCallFailures(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	script := func(w http.ResponseWriter, r *http.Request, name string, _ json.RawMessage) {
		switch name {
		case "html500":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			_, _ = io.WriteString(w, "<h1>Internal Server Error</h1>")
		case "text400":
			w.WriteHeader(400)
			_, _ = io.WriteString(w, "bad things")
		case "json500":
			writeJSON(w, 500, map[string]any{"error": "EXECUTION_ERROR", "message": "Internal server error"})
		case "hang":
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		case "garbage":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "{not json")
		}
	}
	names := []string{"html500", "text400", "json500", "hang", "garbage"}
	want := map[string]string{
		"html500": "Error: HTTP 500: <h1>Internal Server Error</h1>",
		"text400": "Error: HTTP 400: bad things",
		"json500": "Error: Internal server error (HTTP 500 EXECUTION_ERROR)",
		"hang":    "did not answer hang within 300ms",
	}
	for _, transport := range []string{"mcp", "v1", "auto"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			var tools []map[string]any
			for _, n := range names {
				tools = append(tools, tool(n, n))
			}
			s := newStandIn(t, tools...)
			s.answer = script
			var l logs
			c := run(t, newBridge(t, s, transport, &l, Options{CallTimeout: 300 * time.Millisecond}))
			for _, n := range names {
				text, isErr := c.callText(n, map[string]any{})
				if !isErr || !strings.HasPrefix(text, "Error: ") || !strings.Contains(text, want[n]) {
					t.Errorf("%s: %q isError=%v, want %q", n, text, isErr, want[n])
				}
				if got := s.callCount(n); got != 1 {
					t.Errorf("%s ran %d times", n, got)
				}
			}
		})
	}
}

// TestAutoFallsBackOnce: a server whose MCP endpoint does not have
// tools/call (each of the answers that prove a call did not run) gets the
// call over v1, once; afterwards v1 serves everything.
func TestAutoFallsBackOnce(t *testing.T) {
	answers := map[string]func(w http.ResponseWriter){
		"404": func(w http.ResponseWriter) { w.WriteHeader(404) },
		"405": func(w http.ResponseWriter) { w.WriteHeader(405) },
		"501": func(w http.ResponseWriter) { w.WriteHeader(501) },
		"-32601": func(w http.ResponseWriter) {
			writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newStandIn(t, tool("echo", "echo"))
			var mcpCalls atomic.Int64
			s.answer = func(w http.ResponseWriter, r *http.Request, _ string, args json.RawMessage) {
				if r.URL.Path == "/mcp" {
					mcpCalls.Add(1)
					answer(w)
					return
				}
				writeJSON(w, 200, map[string]any{"success": true, "content": []any{map[string]any{"type": "text", "text": "v1 " + string(args)}}})
			}
			var l logs
			b := newBridge(t, s, "auto", &l, Options{})
			c := run(t, b)
			for i := range 2 {
				text, isErr := c.callText("echo", map[string]any{"n": i})
				if isErr || text != fmt.Sprintf(`v1 {"n":%d}`, i) {
					t.Errorf("call %d: %q isError=%v", i, text, isErr)
				}
			}
			if mcpCalls.Load() != 1 || b.up.Name() != "v1" {
				t.Errorf("MCP was asked %d times; transport now %s", mcpCalls.Load(), b.up.Name())
			}
		})
	}
}

// TestServerGoesAwayAndComesBack: while the server is down the last tools
// are served, calls fail in words, and the failure is logged once; when it
// is back on the same port nothing is notified unless the tools changed.
func TestServerGoesAwayAndComesBack(t *testing.T) {
	for _, transport := range []string{"mcp", "v1"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			s := newStandIn(t, tool("echo", "echo"))
			var l logs
			c := run(t, newBridge(t, s, transport, &l, Options{}))
			addr := strings.TrimPrefix(s.url(), "http://")
			s.stop()
			l.waitPolls(t, 3)
			if n := l.count("cannot be listed"); n != 1 {
				t.Errorf("the failing server was logged %d times, want once per streak:\n%s", n, l.String())
			}
			if got := c.toolNames(); fmt.Sprint(got) != "[echo]" {
				t.Errorf("tools while down = %v", got)
			}
			if text, isErr := c.callText("echo", map[string]any{}); !isErr || !strings.Contains(strings.ToLower(text), "connection refused") { // "Connection refused." on Windows
				t.Errorf("call while down: %q isError=%v", text, isErr)
			}
			s.start(t, addr)
			testenv.Eventually(t, 10*time.Second, "the bridge saw the server again", func() bool { return l.count("answers again") == 1 })
			if text, isErr := c.callText("echo", map[string]any{"x": 1}); isErr || !strings.Contains(text, `{"x":1}`) {
				t.Errorf("call after the return: %q isError=%v", text, isErr)
			}
			if n := c.notifications("notifications/tools/list_changed"); n != 0 {
				t.Errorf("%d list_changed though the tools are the same", n)
			}
			s.stop()
			s.setTools(tool("echo", "echo"), tool("new", "new"))
			s.start(t, addr)
			testenv.Eventually(t, 10*time.Second, "list_changed for the restarted server's new tool", func() bool { return c.notifications("notifications/tools/list_changed") == 1 })
			if s.callCount("echo") != 1 {
				t.Errorf("echo ran %d times for 1 call that reached it", s.callCount("echo"))
			}
		})
	}
}

// TestStartsAtOnce: with its server down, the bridge answers initialize
// at once (tools only, their list may change), lists no tools, and answers
// a call with what is wrong and what to do; when the server comes, the
// client is told, and the tools work. It exits at the end of its input
// whatever the server's state.
func TestStartsAtOnce(t *testing.T) {
	for _, transport := range []string{"mcp", "v1", "auto"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			s := newStandIn(t, tool("echo", "echo"))
			addr := strings.TrimPrefix(s.url(), "http://")
			s.stop()
			var l logs
			start := time.Now()
			c := run(t, newBridge(t, s, transport, &l, Options{Backoff: Backoff{First: 20 * time.Millisecond, Max: 50 * time.Millisecond, Attempts: 3}}))
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("initialize took %s", took)
			}
			var init struct {
				Capabilities struct {
					Tools *struct {
						ListChanged bool `json:"listChanged"`
					} `json:"tools"`
				} `json:"capabilities"`
			}
			c.mu.Lock()
			_ = json.Unmarshal(c.got[0]["result"], &init)
			c.mu.Unlock()
			if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
				t.Errorf("initialize while down: %+v", init)
			}
			if got := c.toolNames(); len(got) != 0 {
				t.Errorf("tools while the server never answered: %v", got)
			}
			text, isErr := c.callText("echo", map[string]any{})
			if !isErr || !strings.Contains(text, s.url()) || !strings.Contains(text, "cannot be reached") || !strings.Contains(text, "start Obsidian with the ObsiScripta Bridge plugin enabled, or obsidian-mcp serve") {
				t.Errorf("a call while down: %q isError=%v", text, isErr)
			}
			l.waitFor(t, "the server still does not answer; trying every 50ms")
			s.start(t, addr)
			testenv.Eventually(t, 10*time.Second, "list_changed once the server answers", func() bool { return c.notifications("notifications/tools/list_changed") == 1 })
			if got := c.toolNames(); fmt.Sprint(got) != "[echo]" {
				t.Errorf("tools once the server answers: %v", got)
			}
			if text, isErr := c.callText("echo", map[string]any{"x": 1}); isErr || !strings.Contains(text, `{"x":1}`) {
				t.Errorf("a call once the server answers: %q isError=%v", text, isErr)
			}
			c.finish()
			// Tries 1 (before initialize) and 3 (the last of the budget)
			// have lines of their own.
			if n := l.count("waiting for the server"); n != 1 {
				t.Errorf("%d waits logged, want 1 (the 2nd try):\n%s", n, l.String())
			}
		})
	}
}

// TestStartsAtOnceRefused: a server that refuses the bridge (a missing
// key) does not hold up initialize either, and a call says how to fix it.
func TestStartsAtOnceRefused(t *testing.T) {
	t.Parallel()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":"UNAUTHORIZED","message":"this server needs its API key"}`)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	up := &upstream.MCP{URL: "http://" + ln.Addr().String() + "/mcp", HTTP: http.DefaultClient}
	var l logs
	b := New(up, Options{Logger: slog.New(slog.NewTextHandler(&l, nil)), Backoff: Backoff{First: time.Second, Max: time.Second, Attempts: 2}})
	c := run(t, b)
	text, isErr := c.callText("anything", map[string]any{})
	if !isErr || !strings.Contains(text, "refused the bridge") || !strings.Contains(text, "HTTP 401") || !strings.Contains(text, "set OBSIDIAN_MCP_API_KEY") {
		t.Errorf("a call to a server that refuses: %q isError=%v", text, isErr)
	}
	c.finish()
}

// TestCancellationForwarded: a call the client cancels ends its HTTP
// request, and the MCP server is told (notifications/cancelled); the
// client gets no answer to it, and the next call works.
func TestCancellationForwarded(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, tool("slow", "slow"), tool("echo", "echo"))
	var aborted atomic.Int64
	started := make(chan struct{}, 1)
	s.answer = func(w http.ResponseWriter, r *http.Request, name string, _ json.RawMessage) {
		if name == "echo" {
			writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 9, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}})
			return
		}
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			aborted.Add(1)
		case <-time.After(10 * time.Second):
		}
	}
	var l logs
	c := run(t, newBridge(t, s, "mcp", &l, Options{}))
	id := c.start("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	<-started
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": "user"}})
	testenv.Eventually(t, 10*time.Second, "the HTTP request was aborted and the server told", func() bool { return aborted.Load() == 1 && s.cancels.Load() == 1 })
	if text, isErr := c.callText("echo", map[string]any{}); isErr || text != "ok" {
		t.Errorf("next call: %q %v", text, isErr)
	}
	c.finish() // everything the bridge will write is in c.got
	c.mu.Lock()
	for _, m := range c.got {
		if string(m["id"]) == fmt.Sprint(id) {
			t.Errorf("the cancelled call was answered: %s", m["result"])
		}
	}
	c.mu.Unlock()
}

// TestContentPassesThrough: every kind of content block, structured
// content, and the server's own JSON-RPC errors reach the client as the
// server sent them; inputSchema's type is always object.
func TestContentPassesThrough(t *testing.T) {
	t.Parallel()
	content := `[{"type":"text","text":"a\u00e9\n","annotations":{"audience":["user"],"priority":0.5}},` +
		`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
		`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},` +
		`{"type":"resource_link","uri":"obsidian-mcp://note/A.md","name":"A.md","mimeType":"text/markdown"},` +
		`{"type":"resource","resource":{"uri":"obsidian-mcp://note/B.md","mimeType":"text/markdown","text":"# B"}},` +
		`{"type":"future_kind","x":{"y":[1,2,3]},"_meta":{"k":"v"}}]`
	structured := `{"success":true,"data":{"n":12345678901234567890,"list":[]}}`
	s := newStandIn(t,
		map[string]any{"name": "rich", "inputSchema": map[string]any{"properties": map[string]any{}}},
		map[string]any{"name": "noschema"},
		map[string]any{"name": "fails", "inputSchema": map[string]any{"type": "string"}})
	var gotArgs atomic.Value
	s.answer = func(w http.ResponseWriter, r *http.Request, name string, args json.RawMessage) {
		gotArgs.Store(string(args))
		var id json.RawMessage = []byte("1")
		if name == "fails" {
			writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32003, "message": "note not found: X.md", "data": map[string]any{"errorCode": "FILE_NOT_FOUND", "hint": "Check the path"}}})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":`+content+`,"structuredContent":`+structured+`}}`)
	}
	var l logs
	c := run(t, newBridge(t, s, "mcp", &l, Options{}))
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.request("tools/list", nil)["result"], &list); err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || string(schema["type"]) != `"object"` {
			t.Errorf("%s inputSchema = %s", tl.Name, tl.InputSchema)
		}
	}
	ans := c.request("tools/call", map[string]any{"name": "rich", "arguments": json.RawMessage(`{"big":12345678901234567890,"s":"x"}`)})
	var res struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(ans["result"], &res); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(res.Content, content) || !sameJSON(res.StructuredContent, structured) || !bytes.Contains(res.StructuredContent, []byte("12345678901234567890")) {
		t.Errorf("content or structuredContent changed:\n%s\n%s", res.Content, res.StructuredContent)
	}
	if got := gotArgs.Load(); got != `{"big":12345678901234567890,"s":"x"}` {
		t.Errorf("arguments sent = %v, want them as the client wrote them", got)
	}
	ans = c.request("tools/call", map[string]any{"name": "fails", "arguments": map[string]any{}})
	if !sameJSON(ans["error"], `{"code":-32003,"message":"note not found: X.md","data":{"errorCode":"FILE_NOT_FOUND","hint":"Check the path"}}`) {
		t.Errorf("the server's error changed: %s %s", ans["error"], ans["result"])
	}
}

func sameJSON(a json.RawMessage, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// TestEndOfInputDrains: a client that writes a call and closes stdin still
// gets the answer, and the bridge then exits cleanly.
func TestEndOfInputDrains(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, tool("slow", "slow"))
	s.answer = func(w http.ResponseWriter, r *http.Request, _ string, _ json.RawMessage) {
		time.Sleep(300 * time.Millisecond)
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "late"}}}})
	}
	var l logs
	c := run(t, newBridge(t, s, "mcp", &l, Options{}))
	id := c.start("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	_ = c.in.Close()
	ans := c.wait(id)
	if !strings.Contains(string(ans["result"]), "late") {
		t.Errorf("answer = %s", ans["result"])
	}
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
		c.done <- nil
	case <-time.After(10 * time.Second):
		t.Error("the bridge did not exit at end of input")
	}
}

// TestManyCallsWhileToolsChange: 60 calls at once while the server's tool
// set changes under them: every call is answered exactly once, each ran
// once on the server, and each change was one notification.
func TestManyCallsWhileToolsChange(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, tool("echo", "echo"))
	s.answer = func(w http.ResponseWriter, r *http.Request, _ string, args json.RawMessage) {
		time.Sleep(5 * time.Millisecond)
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": string(args)}}}})
	}
	var l logs
	c := run(t, newBridge(t, s, "mcp", &l, Options{}))
	const n = 60
	ids := make([]int, n)
	for i := range n {
		ids[i] = c.start("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"i": i}})
		if i == n/3 {
			s.setTools(tool("echo", "echo"), tool("extra", "extra"))
		}
		if i == 2*n/3 {
			s.setTools(tool("echo", "echo, reworded"))
		}
	}
	for i, id := range ids {
		ans := c.wait(id)
		if !strings.Contains(string(ans["result"]), fmt.Sprintf(`{\"i\":%d}`, i)) {
			t.Errorf("call %d: %s", i, ans["result"])
		}
	}
	testenv.Eventually(t, 10*time.Second, "both changes notified", func() bool { return c.notifications("notifications/tools/list_changed") >= 1 })
	c.mu.Lock()
	answers := map[string]int{}
	for _, m := range c.got {
		if m["id"] != nil {
			answers[string(m["id"])]++
		}
	}
	c.mu.Unlock()
	for _, id := range ids {
		if answers[fmt.Sprint(id)] != 1 {
			t.Errorf("request %d answered %d times", id, answers[fmt.Sprint(id)])
		}
	}
	if got := s.callCount("echo"); got != n {
		t.Errorf("the server ran %d calls for %d sent", got, n)
	}
	c.finish() // every notification the bridge will send is in
	if got, changes := c.notifications("notifications/tools/list_changed"), l.count("tools changed"); got != changes || got < 1 || got > 2 {
		t.Errorf("%d list_changed for %d changes seen", got, changes)
	}
}
