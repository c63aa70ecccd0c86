package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// The gateway's HTTP faces on a real loopback listener, with a small
// in-process MCP server as each vault namespace: the transports, the
// session rules, the limits, and Host, Origin and CORS.

// testServer is a vault namespace's stand-in: echo, a typed failure, an
// answer of any size, a call that waits (and reports its cancellation),
// and a call that notifies its own session.
type testServer struct {
	release   chan struct{}
	started   chan struct{}
	cancelled atomic.Int32
	closed    atomic.Bool
	// wrote counts the calls of write, the one tool said to change the
	// vault.
	wrote atomic.Int32
}

func (ts *testServer) vault() *VaultServer {
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test-vault", "1.0.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.E(errors.FileNotFound, "no such note")
	})
	s.AddTool(mcp.NewTool("big", mcp.WithNumber("bytes")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", req.GetInt("bytes", 0))), nil
	})
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ts.started <- struct{}{}
		select {
		case <-ts.release:
			return mcp.NewToolResultText("done"), nil
		case <-ctx.Done():
			ts.cancelled.Add(1)
			return nil, ctx.Err()
		}
	})
	s.AddTool(mcp.NewTool("notify"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "hello"})
		return mcp.NewToolResultText(fmt.Sprint(err)), nil
	})
	s.AddTool(mcp.NewTool("write"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ts.wrote.Add(1)
		return mcp.NewToolResultText("written"), nil
	})
	return &VaultServer{Core: protocol.New(s, protocol.Options{}), Close: func() { ts.closed.Store(true) },
		Guard: auth.Guard{Writes: func(tool string) bool { return tool == "write" }}}
}

// running is a gateway serving on loopback.
type running struct {
	g          *Gateway
	api, debug string
	ts         *testServer
	stop       func()
	done       chan error
}

func startGateway(t *testing.T, yaml string) *running {
	t.Helper()
	return startGatewayWith(t, yaml, Options{})
}

// startGatewayWith is startGateway with options (the vault opener and the
// grace period are the test's).
func startGatewayWith(t *testing.T, yaml string, opts Options) *running {
	t.Helper()
	cfg, err := Parse("gateway.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{release: make(chan struct{}), started: make(chan struct{}, 16)}
	opts.OpenVault = func(Namespace) (*VaultServer, error) { return ts.vault(), nil }
	opts.Grace = 5 * time.Second
	g, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	api, _ := net.Listen("tcp", "127.0.0.1:0")
	debug, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{g: g, api: "http://" + api.Addr().String(), debug: "http://" + debug.Addr().String(), ts: ts, stop: cancel, done: make(chan error, 1)}
	go func() { r.done <- g.Serve(ctx, api, debug) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("the gateway did not stop within 10 s")
		}
	})
	return r
}

const twoVaults = "namespaces:\n  notes:\n    vault_path: /n\n  work:\n    vault_path: /w\n"

func do(t *testing.T, method, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// event is one SSE event as a client reads it.
type event struct {
	name string
	data []byte
}

// sse is an open SSE stream, read event by event.
type sse struct {
	resp   *http.Response
	events chan event
	cancel context.CancelFunc
}

func openSSE(t *testing.T, url string, headers ...string) (*sse, *http.Response) {
	t.Helper()
	return streamOf(t, http.MethodGet, url, "", headers...)
}

// postSSE posts body and reads its answer as a stream (a POST's answer
// turns into one when the server sends something before it).
func postSSE(t *testing.T, url, body string, headers ...string) (*sse, *http.Response) {
	t.Helper()
	return streamOf(t, http.MethodPost, url, body, append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, headers...)...)
}

func streamOf(t *testing.T, method, url, body string, headers ...string) (*sse, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
		return nil, resp
	}
	s := &sse{resp: resp, events: make(chan event, 64), cancel: cancel}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 32<<20)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = append(ev.data, line[len("data: "):]...)
			case line == "":
				s.events <- ev
				ev = event{}
			}
		}
	}()
	t.Cleanup(s.close)
	return s, resp
}

func (s *sse) close() {
	s.cancel()
	s.resp.Body.Close()
}

// next is the next event not a ping.
func (s *sse) next(t *testing.T) event {
	t.Helper()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.name != "ping" {
				return ev
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10 s")
		}
	}
}

// nextAfter sends what marker does (a request whose answer comes on this
// stream) and fails unless that answer, with want in it, is the next event
// not a ping: whatever the stream was sent before the marker would come
// first. It shows a stream got nothing, with no wait for an absence.
func (s *sse) nextAfter(t *testing.T, marker func(), want string) {
	t.Helper()
	marker()
	if ev := s.next(t); !strings.Contains(string(ev.data), want) {
		t.Errorf("the stream carried %s %s before the marker's answer %s", ev.name, ev.data, want)
	}
}

func call(id int, tool string, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestHealth(t *testing.T) {
	r := startGateway(t, twoVaults)
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/health", 200, `{"status":"healthy"}`},
		{"/health/notes", 200, `{"namespace":"notes","status":"running"}`},
		{"/health/work", 200, `{"namespace":"work","status":"running"}`},
		{"/health/Notes", 404, `"error":"NAMESPACE_NOT_FOUND"`},
		{"/nothing", 404, `"error":"NOT_FOUND"`},
	} {
		resp, body := do(t, http.MethodGet, r.api+c.path, "")
		if resp.StatusCode != c.status || !strings.Contains(body, c.body) {
			t.Errorf("GET %s = %d %s, want %d with %s", c.path, resp.StatusCode, body, c.status, c.body)
		}
	}
}

// TestLegacySSE: the contract's flow, and MCP 2024-11-05's: the stream
// names its message URL, a POST there is 202 at once, and the answer comes
// on that stream only; further path segments are ignored.
func TestLegacySSE(t *testing.T) {
	r := startGateway(t, twoVaults)
	a, _ := openSSE(t, r.api+"/mcp/notes/ignored/segments")
	b, _ := openSSE(t, r.api+"/mcp/notes")
	endA, endB := a.next(t), b.next(t)
	if endA.name != "endpoint" || !strings.HasPrefix(string(endA.data), "/mcp/notes/message?sessionId=") || string(endA.data) == string(endB.data) {
		t.Fatalf("endpoint events %q and %q", endA.data, endB.data)
	}
	resp, body := do(t, http.MethodPost, r.api+string(endA.data), initialize)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Fatalf("POST initialize = %d %q", resp.StatusCode, body)
	}
	if ev := a.next(t); ev.name != "message" || !strings.Contains(string(ev.data), `"serverInfo":{"name":"test-vault"`) {
		t.Fatalf("answer to initialize: %s %s", ev.name, ev.data)
	}
	do(t, http.MethodPost, r.api+string(endA.data), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	do(t, http.MethodPost, r.api+string(endA.data), call(2, "echo", `{"text":"hi"}`))
	if ev := a.next(t); !strings.Contains(string(ev.data), `"id":2`) || !strings.Contains(string(ev.data), `"text":"hi"`) {
		t.Fatalf("answer to echo: %s", ev.data)
	}
	// A typed failure keeps its code, as on stdio.
	do(t, http.MethodPost, r.api+string(endA.data), call(3, "fail", `{}`))
	if ev := a.next(t); !strings.Contains(string(ev.data), `"code":-32003`) {
		t.Fatalf("answer to fail: %s", ev.data)
	}
	// Nothing of A's session reached B's stream: B's own next answer is
	// the next thing on it.
	endB2 := string(endB.data)
	b.nextAfter(t, func() { do(t, http.MethodPost, r.api+endB2, call(9, "echo", `{"text":"marker"}`)) }, `"text":"marker"`)
}

// TestSharedSession: a POST naming no session goes to the namespace's
// shared session, whose answers go to every stream of that namespace, and
// of no other.
func TestSharedSession(t *testing.T) {
	r := startGateway(t, twoVaults)
	a, _ := openSSE(t, r.api+"/mcp/notes")
	b, _ := openSSE(t, r.api+"/mcp/notes")
	w, _ := openSSE(t, r.api+"/mcp/work")
	a.next(t)
	b.next(t)
	endW := w.next(t)
	resp, _ := do(t, http.MethodPost, r.api+"/mcp/notes/message", call(7, "echo", `{"text":"all"}`))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, s := range []*sse{a, b} {
		if ev := s.next(t); !strings.Contains(string(ev.data), `"id":7`) {
			t.Errorf("shared answer: %s", ev.data)
		}
	}
	// Nothing of the notes namespace reached the work one's stream.
	ew := string(endW.data)
	w.nextAfter(t, func() { do(t, http.MethodPost, r.api+ew, call(8, "echo", `{"text":"marker"}`)) }, `"text":"marker"`)
}

// TestModernRequestsStandAlone: an MCP 2026-07-28 request that names no
// session is served in a session of its own, so what it causes reaches
// its own POST: a call's notification comes on that call's stream, not
// on the stream of another client's call still waiting.
func TestModernRequestsStandAlone(t *testing.T) {
	r := startGateway(t, twoVaults)
	url := r.api + "/mcp/notes"
	headers := func(tool string) []string {
		return []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool}
	}
	waited := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call(1, "slow", `{}`)))
		h := headers("slow")
		for i := 0; i < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			waited <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		waited <- string(b)
	}()
	select {
	case <-r.ts.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call did not start within 10 s")
	}
	notified, _ := postSSE(t, url, call(2, "notify", `{}`), headers("notify")...)
	if ev := notified.next(t); !strings.Contains(string(ev.data), `"method":"notifications/message"`) {
		t.Errorf("the notifying call's stream began with %s", ev.data)
	}
	if ev := notified.next(t); !strings.Contains(string(ev.data), `"id":2,"result"`) {
		t.Errorf("the notifying call's answer: %s", ev.data)
	}
	r.ts.release <- struct{}{}
	select {
	case body := <-waited:
		// Its answer alone, as JSON: nothing came before it.
		if !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":1,"result"`) {
			t.Errorf("the waiting call got %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call was not answered within 10 s")
	}
}

func TestLegacySessionRules(t *testing.T) {
	r := startGateway(t, twoVaults)
	a, _ := openSSE(t, r.api+"/mcp/notes?sessionId=mine")
	if ev := a.next(t); string(ev.data) != "/mcp/notes/message?sessionId=mine" {
		t.Fatalf("endpoint %s", ev.data)
	}
	// The same session twice: 409.
	if s, resp := openSSE(t, r.api+"/mcp/notes?sessionId=mine"); s != nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("second stream for the session: %d", resp.StatusCode)
	}
	if _, resp := openSSE(t, r.api+"/mcp/notes?sessionId=bad%20id"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad session id: %d", resp.StatusCode)
	}
	// Another namespace does not know it.
	if resp, _ := do(t, http.MethodPost, r.api+"/mcp/work/message?sessionId=mine", call(1, "echo", `{}`)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("session of another namespace: %d", resp.StatusCode)
	}
	// The session ends with its stream.
	a.close()
	deadline := time.Now().Add(5 * time.Second)
	for slices.Contains(r.g.spaces["notes"].endpoint.Sessions(), "mine") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if resp, body := do(t, http.MethodPost, r.api+"/mcp/notes/message?sessionId=mine", call(1, "echo", `{}`)); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "SESSION_NOT_FOUND") {
		t.Errorf("POST to an ended session: %d %s", resp.StatusCode, body)
	}
	if _, resp := openSSE(t, r.api+"/mcp/nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown namespace: %d", resp.StatusCode)
	}
}

// TestStreamableHTTP: initialize opens a session, answers come in the
// body, GET opens the session's stream (once), DELETE ends the session; a
// request with no session is served on the shared one.
func TestStreamableHTTP(t *testing.T) {
	r := startGateway(t, twoVaults)
	resp, body := do(t, http.MethodPost, r.api+"/mcp/notes", initialize, "Accept", "application/json, text/event-stream")
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, id, body)
	}
	if resp, _ := do(t, http.MethodPost, r.api+"/mcp/notes", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", id); resp.StatusCode != http.StatusAccepted {
		t.Errorf("notification: %d", resp.StatusCode)
	}
	stream, _ := openSSE(t, r.api+"/mcp/notes", "Mcp-Session-Id", id)
	if s, resp := openSSE(t, r.api+"/mcp/notes", "Mcp-Session-Id", id); s != nil || resp.StatusCode != http.StatusConflict {
		t.Errorf("second GET: %d", resp.StatusCode)
	}
	// A server notification reaches this session's stream; the answer
	// comes in the body.
	_, body = do(t, http.MethodPost, r.api+"/mcp/notes", call(2, "notify", `{}`), "Mcp-Session-Id", id)
	if !strings.Contains(body, `"text":"\u003cnil\u003e"`) && !strings.Contains(body, `"text":"<nil>"`) {
		t.Errorf("notify answer: %s", body)
	}
	if ev := stream.next(t); !strings.Contains(string(ev.data), `"method":"notifications/message"`) {
		t.Errorf("notification: %s", ev.data)
	}
	// A batch: refused in this session's revision (2025-06-18, which has
	// none), header or not; answered, in an array, where the header names
	// 2025-03-26.
	batchBody := "[" + call(3, "echo", `{"text":"a"}`) + "," + call(4, "echo", `{"text":"b"}`) + "]"
	if resp, body := do(t, http.MethodPost, r.api+"/mcp/notes", batchBody, "Mcp-Session-Id", id); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "2025-06-18 has no JSON-RPC batches") {
		t.Errorf("batch in a 2025-06-18 session: %d %s", resp.StatusCode, body)
	}
	_, body = do(t, http.MethodPost, r.api+"/mcp/notes", batchBody, "Mcp-Session-Id", id, "MCP-Protocol-Version", "2025-03-26")
	var batch []map[string]any
	if err := json.Unmarshal([]byte(body), &batch); err != nil || len(batch) != 2 {
		t.Errorf("batch: %s", body)
	}
	// Session-less.
	if resp, body := do(t, http.MethodPost, r.api+"/mcp/work", call(9, "echo", `{"text":"alone"}`)); resp.StatusCode != 200 || !strings.Contains(body, "alone") || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("session-less: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, http.MethodDelete, r.api+"/mcp/notes", "", "Mcp-Session-Id", id); resp.StatusCode != 200 {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if resp, _ := do(t, http.MethodPost, r.api+"/mcp/notes", call(5, "echo", `{}`), "Mcp-Session-Id", id); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after DELETE: %d", resp.StatusCode)
	}
	if resp, _ := do(t, http.MethodDelete, r.api+"/mcp/notes", ""); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("DELETE without a session: %d", resp.StatusCode)
	}
}

func TestBadBodies(t *testing.T) {
	r := startGateway(t, twoVaults)
	for _, c := range []struct{ body, want string }{
		{`{bad`, `"code":-32700`},
		{``, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":1}`, `Invalid Request: missing method`},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `"jsonrpc\" must be \"2.0\"`},
		{`[]`, `non-empty array`},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `"id\" must be a string or a number`},
	} {
		for _, path := range []string{"/mcp/notes", "/mcp/notes/message"} {
			resp, body := do(t, http.MethodPost, r.api+path, c.body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, c.want) {
				t.Errorf("POST %s %q = %d %s, want 400 with %s", path, c.body, resp.StatusCode, body, c.want)
			}
		}
	}
}

// TestRevisions: an MCP-Protocol-Version the gateway does not speak is a
// 400 on every endpoint (MCP Streamable HTTP), a POST's with the JSON-RPC
// UnsupportedProtocolVersionError (-32022, SEP-2575) under its id; a batch is processed on
// 2025-03-26 (or when the client names no revision) and refused with
// -32600 on any other.
func TestRevisions(t *testing.T) {
	r := startGateway(t, twoVaults)
	batch := `[` + call(1, "echo", `{"text":"a"}`) + `,` + call(2, "echo", `{"text":"b"}`) + `]`
	for _, v := range []string{"1999-01-01", "garbage"} {
		for _, c := range []struct{ method, path string }{{"POST", "/mcp/notes"}, {"POST", "/mcp/notes/message"}, {"GET", "/mcp/notes"}, {"DELETE", "/mcp/notes"}} {
			resp, body := do(t, c.method, r.api+c.path, call(1, "echo", `{}`), "MCP-Protocol-Version", v)
			want := "UNSUPPORTED_PROTOCOL_VERSION"
			if c.method == "POST" {
				want = `"id":1,"error":{"code":-32022`
			}
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, want) {
				t.Errorf("%s %s with MCP-Protocol-Version %s = %d %s, want 400", c.method, c.path, v, resp.StatusCode, body)
			}
		}
	}
	for _, c := range []struct{ revision, want string }{
		{"", `"text":"b"`},
		{"2025-03-26", `"text":"b"`},
		{"2025-06-18", `MCP revision 2025-06-18 has no JSON-RPC batches`},
		{"2026-07-28", `MCP revision 2026-07-28 has no JSON-RPC batches`},
	} {
		var headers []string
		if c.revision != "" {
			headers = []string{"MCP-Protocol-Version", c.revision}
		}
		_, body := do(t, http.MethodPost, r.api+"/mcp/notes", batch, headers...)
		if !strings.Contains(body, c.want) {
			t.Errorf("a batch on revision %q: %s, want %s", c.revision, body, c.want)
		}
	}
}

// TestLimits: a request over max_request is 413 on both POSTs; an answer
// over max_response is 500 with a JSON-RPC error in the body, and the same
// error on a stream; the connection after max_connections is 503.
func TestLimits(t *testing.T) {
	r := startGateway(t, "limits: {max_request: 2KB, max_response: 4KB, max_connections: 2}\n"+twoVaults)
	big := call(1, "echo", `{"text":"`+strings.Repeat("y", 2100)+`"}`)
	for _, path := range []string{"/mcp/notes", "/mcp/notes/message"} {
		if resp, body := do(t, http.MethodPost, r.api+path, big); resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "limits.max_request") {
			t.Errorf("POST %s of %d bytes: %d %s", path, len(big), resp.StatusCode, body)
		}
	}
	resp, body := do(t, http.MethodPost, r.api+"/mcp/notes", call(2, "big", `{"bytes":5000}`))
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, `"id":2`) || !strings.Contains(body, "limits.max_response") {
		t.Errorf("big answer: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, http.MethodPost, r.api+"/mcp/notes", call(3, "big", `{"bytes":3000}`)); resp.StatusCode != 200 {
		t.Errorf("answer under the limit: %d", resp.StatusCode)
	}
	a, _ := openSSE(t, r.api+"/mcp/notes")
	end := a.next(t)
	do(t, http.MethodPost, r.api+string(end.data), call(4, "big", `{"bytes":5000}`))
	if ev := a.next(t); !strings.Contains(string(ev.data), `"id":4`) || !strings.Contains(string(ev.data), "limits.max_response") {
		t.Errorf("big answer on the stream: %.200s", ev.data)
	}
	b, _ := openSSE(t, r.api+"/mcp/work")
	b.next(t)
	_, resp = openSSE(t, r.api+"/mcp/notes")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third stream with max_connections 2: %d", resp.StatusCode)
	}
	// A stream that closes frees its slot.
	b.close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, resp := openSSE(t, r.api+"/mcp/work")
		if c != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot freed: %d", resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDefaultConnections: with the default limit, five streams open (SSE
// and Streamable HTTP, on two namespaces), the sixth is 503 with
// Retry-After and the fix, and the five can still be talked to.
func TestDefaultConnections(t *testing.T) {
	r := startGateway(t, twoVaults)
	var streams []*sse
	var endpoints []string
	for i := range 4 {
		ns := []string{"notes", "work"}[i%2]
		s, resp := openSSE(t, r.api+"/mcp/"+ns)
		if s == nil {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
		streams = append(streams, s)
		endpoints = append(endpoints, string(s.next(t).data))
	}
	// The fifth: a Streamable HTTP session's stream.
	resp, _ := do(t, http.MethodPost, r.api+"/mcp/notes", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if s, resp := openSSE(t, r.api+"/mcp/notes", "Mcp-Session-Id", session); s == nil {
		t.Fatalf("stream 5 (Streamable HTTP): %d", resp.StatusCode)
	}
	s6, resp := openSSE(t, r.api+"/mcp/work")
	if s6 != nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth stream: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), "all 5 connections (limits.max_connections) are in use") || !strings.Contains(string(body), "raise limits.max_connections") {
		t.Errorf("sixth stream's refusal: %s", body)
	}
	for i, s := range streams {
		if resp, _ := do(t, http.MethodPost, r.api+endpoints[i], call(10+i, "echo", `{"text":"hi"}`)); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST on stream %d's session: %d", i+1, resp.StatusCode)
		}
		if ev := s.next(t); !strings.Contains(string(ev.data), fmt.Sprintf(`"id":%d`, 10+i)) {
			t.Errorf("stream %d: %.200s", i+1, ev.data)
		}
	}
}

// TestHostOriginCORS: a foreign Host or Origin is refused before anything
// runs; allowed origins get CORS headers on every answer, OPTIONS too.
func TestHostOriginCORS(t *testing.T) {
	r := startGateway(t, "allowed_origins: [http://app.example]\n"+twoVaults)
	for _, c := range []struct {
		method, path string
		headers      []string
		status       int
		origin       string
	}{
		{"GET", "/health", []string{"Host", "evil.example"}, 403, "http://app.example"},
		{"POST", "/mcp/notes/message", []string{"Host", "evil.example:8080"}, 403, "http://app.example"},
		{"GET", "/health", []string{"Origin", "http://evil.example"}, 403, ""},
		{"POST", "/mcp/notes", []string{"Origin", "http://evil.example"}, 403, ""},
		{"GET", "/health", []string{"Origin", "http://app.example"}, 200, "http://app.example"},
		{"GET", "/health", []string{"Origin", "http://localhost:3000"}, 200, "http://localhost:3000"},
		{"GET", "/health", []string{"Host", "localhost:1234"}, 200, "http://app.example"},
		{"OPTIONS", "/mcp/notes", []string{"Origin", "http://app.example"}, 200, "http://app.example"},
		{"GET", "/health/nope", nil, 404, "http://app.example"},
	} {
		body := ""
		if c.method == "POST" {
			body = call(1, "echo", `{}`)
		}
		resp, got := do(t, c.method, r.api+c.path, body, c.headers...)
		if resp.StatusCode != c.status {
			t.Errorf("%s %s %v = %d %s, want %d", c.method, c.path, c.headers, resp.StatusCode, got, c.status)
		}
		if o := resp.Header.Get("Access-Control-Allow-Origin"); o != c.origin {
			t.Errorf("%s %s %v: Access-Control-Allow-Origin %q, want %q", c.method, c.path, c.headers, o, c.origin)
		}
		if m := resp.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "GET, POST") || !strings.Contains(m, "OPTIONS") {
			t.Errorf("%s %s: Access-Control-Allow-Methods %q", c.method, c.path, m)
		}
		if h := resp.Header.Get("Access-Control-Allow-Headers"); !strings.Contains(h, "Content-Type") {
			t.Errorf("%s %s: Access-Control-Allow-Headers %q", c.method, c.path, h)
		}
	}
}

// TestCancelOnDisconnect: a Streamable HTTP client that goes away cancels
// its call.
func TestCancelOnDisconnect(t *testing.T) {
	r := startGateway(t, twoVaults)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.api+"/mcp/notes", strings.NewReader(call(1, "slow", `{}`)))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-r.ts.started
	cancel()
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for r.ts.cancelled.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if r.ts.cancelled.Load() != 1 {
		t.Error("the call was not cancelled")
	}
}

// TestStopFinishesCalls: at stop, a call sent through a 202 finishes and
// its answer reaches the stream before the stream ends; then the vault is
// closed.
func TestStopFinishesCalls(t *testing.T) {
	r := startGateway(t, twoVaults)
	a, _ := openSSE(t, r.api+"/mcp/notes")
	end := a.next(t)
	do(t, http.MethodPost, r.api+string(end.data), call(5, "slow", `{}`))
	<-r.ts.started
	r.stop()
	testenv.Eventually(t, 5*time.Second, "the gateway stopping", r.g.isStopping)
	if resp, _ := do(t, http.MethodPost, r.api+"/mcp/notes", call(6, "echo", `{}`)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a request while stopping: %d", resp.StatusCode)
	}
	close(r.ts.release)
	if ev := a.next(t); !strings.Contains(string(ev.data), `"id":5`) || !strings.Contains(string(ev.data), "done") {
		t.Errorf("answer at stop: %s", ev.data)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Error(err)
		}
		r.done <- nil
	case <-time.After(10 * time.Second):
		t.Fatal("not stopped")
	}
	if !r.ts.closed.Load() {
		t.Error("the vault was not closed")
	}
}

// TestDebugStream: the debug listener sees messages both ways, with their
// namespace and session, and streams coming and going.
func TestDebugStream(t *testing.T) {
	r := startGateway(t, twoVaults)
	d, _ := openSSE(t, r.debug+"/debug/stream")
	a, _ := openSSE(t, r.api+"/mcp/work")
	end := a.next(t)
	sess := strings.TrimPrefix(string(end.data), "/mcp/work/message?sessionId=")
	do(t, http.MethodPost, r.api+string(end.data), call(1, "echo", `{"text":"seen"}`))
	a.next(t)
	var got []string
	for len(got) < 3 {
		ev := d.next(t)
		var m struct {
			Direction, Namespace, Session, Event string
			Message                              json.RawMessage
		}
		if err := json.Unmarshal(ev.data, &m); err != nil {
			t.Fatalf("%s: %v", ev.data, err)
		}
		if m.Session != sess || m.Namespace != "work" {
			t.Errorf("%s event for %s/%s", ev.name, m.Namespace, m.Session)
		}
		got = append(got, ev.name+" "+m.Event+m.Direction)
		if ev.name == "message" && !strings.Contains(string(m.Message), "seen") {
			t.Errorf("message %s", m.Message)
		}
	}
	if strings.Join(got, ",") != "connection connected,message in,message out" {
		t.Errorf("debug events %v", got)
	}
	a.close()
	if ev := d.next(t); ev.name != "connection" || !strings.Contains(string(ev.data), `"disconnected"`) {
		t.Errorf("after close: %s %s", ev.name, ev.data)
	}
	st := r.g.State()
	if len(st.Namespaces) != 2 || st.Namespaces[1].Counts != (Counts{In: 1, Out: 1}) || st.Namespaces[1].Kind != "vault" {
		t.Errorf("state %+v", st)
	}
}

// TestDashboardPage: /debug is one self-contained page: no external
// script, style, image or font, and it reads this listener only.
func TestDashboardPage(t *testing.T) {
	r := startGateway(t, twoVaults)
	resp, body := do(t, http.MethodGet, r.debug+"/debug", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, `new EventSource("/debug/stream")`) {
		t.Fatalf("GET /debug: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, external := range []string{"http://", "https://", "//cdn", "@import", "<link", "src="} {
		if strings.Contains(body, external) {
			t.Errorf("the page refers to something outside itself: %q", external)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	if resp, _ := do(t, http.MethodGet, r.api+"/debug", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the dashboard is on the API listener too: %d", resp.StatusCode)
	}
}
