package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// fixture is an MCP server with three tools behind a Server on a real
// loopback listener: "ok" answers, "missing" fails with a typed error,
// "chatty" sends a log notification first (so the answer comes as SSE) and
// then fails, and "block" waits until released. calls counts every tool run.
type fixture struct {
	url     string
	calls   atomic.Int64
	release chan struct{}
	h       *Server
}

// waitCall waits, with a deadline, until a tool call has reached the
// server's handler.
func (f *fixture) waitCall(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, "a call reaching the server", func() bool { return f.calls.Load() > 0 })
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	f := &fixture{release: make(chan struct{})}
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1.0", server.WithToolCapabilities(false), server.WithLogging(), server.WithHooks(hooks))
	missing := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.calls.Add(1)
		return nil, errors.E(errors.FileNotFound, "note not found: Nope.md").WithHint("check the path")
	}
	s.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.calls.Add(1)
		return mcp.NewToolResultText("fine"), nil
	})
	s.AddTool(mcp.NewTool("missing"), missing)
	// big answers 16 MiB: more than loopback sockets hold for a client
	// that does not read.
	big := strings.Repeat("x", 16<<20)
	s.AddTool(mcp.NewTool("big"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.calls.Add(1)
		return mcp.NewToolResultText(big), nil
	})
	s.AddTool(mcp.NewTool("chatty"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "working"})
		return missing(ctx, req)
	})
	// block holds its slot until released, past its own deadline, as a
	// call stuck in a backend would.
	s.AddTool(mcp.NewTool("block"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.calls.Add(1)
		<-f.release
		return mcp.NewToolResultText("released"), nil
	})
	h, err := New(protocol.New(s, protocol.Options{}), opts)
	if err != nil {
		t.Fatal(err)
	}
	f.h = h
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/mcp"
	return f
}

const listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

func callBody(tool string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// do posts body with headers, and returns the status and body.
func do(t *testing.T, method, url, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(data)
}

// TestRefusedBeforeAnyTool: a foreign Host, a foreign Origin, no key, a
// wrong key and an oversized body are each refused with their status, and
// no tool runs.
func TestRefusedBeforeAnyTool(t *testing.T) {
	const key = "0123456789abcdef0123"
	f := newFixture(t, Options{Key: mustKey(t, key), MaxBody: 1 << 20, AllowedHosts: []string{"notes.lan"}, CORSOrigins: []string{"https://chat.example"}})
	good := map[string]string{"X-Api-Key": key}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"X-Api-Key": key}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	v1 := strings.TrimSuffix(f.url, "/mcp") + "/bridge/v1/tools/ok/call"
	for _, tc := range []struct {
		name    string
		method  string
		body    string
		headers map[string]string
		status  int
		code    string
		url     string
	}{
		{"no key on the Bridge Protocol v1", "POST", `{"arguments":{}}`, nil, 401, "UNAUTHORIZED", v1},
		{"wrong key on the Bridge Protocol v1", "POST", `{"arguments":{}}`, map[string]string{"X-ObsiScripta-Api-Key": "nope"}, 401, "UNAUTHORIZED", v1},
		{"foreign Host on the Bridge Protocol v1", "POST", `{"arguments":{}}`, with(map[string]string{"Host": "evil.example"}), 403, "FORBIDDEN_HOST", v1},
		{"foreign Host (DNS rebinding)", "POST", callBody("ok"), with(map[string]string{"Host": "evil.example:80"}), 403, "FORBIDDEN_HOST", ""},
		{"foreign Origin", "POST", callBody("ok"), with(map[string]string{"Origin": "https://evil.example"}), 403, "FORBIDDEN_ORIGIN", ""},
		{"foreign Origin on a stream", "GET", "", with(map[string]string{"Origin": "http://evil.example"}), 403, "FORBIDDEN_ORIGIN", ""},
		{"an allowed Host, another site's Origin", "POST", callBody("ok"), with(map[string]string{"Host": "notes.lan", "Origin": "https://evil.example"}), 403, "FORBIDDEN_ORIGIN", ""},
		{"a rebound name, its own Origin", "POST", callBody("ok"), with(map[string]string{"Host": "evil.example", "Origin": "https://evil.example"}), 403, "FORBIDDEN_HOST", ""},
		{"no key", "POST", callBody("ok"), nil, 401, "UNAUTHORIZED", ""},
		{"wrong key", "POST", callBody("ok"), map[string]string{"Authorization": "Bearer nope"}, 401, "UNAUTHORIZED", ""},
		{"no key on DELETE", "DELETE", "", nil, 401, "UNAUTHORIZED", ""},
		{"2 MiB body", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok","arguments":{"x":"` + strings.Repeat("a", 2<<20) + `"}}}`, good, 413, "REQUEST_TOO_LARGE", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := f.url
			if tc.url != "" {
				url = tc.url
			}
			status, _, body := do(t, tc.method, url, tc.body, tc.headers)
			var r struct{ Error, Message string }
			_ = json.Unmarshal([]byte(body), &r)
			if status != tc.status || r.Error != tc.code || r.Message == "" {
				t.Errorf("got %d %s, want %d with error %s", status, body, tc.status, tc.code)
			}
		})
	}
	if n := f.calls.Load(); n != 0 {
		t.Fatalf("%d tool calls ran for refused requests", n)
	}
	// The key in each of the three headers clients use; an allowed Host,
	// a loopback Origin and a configured one.
	for _, h := range []map[string]string{
		{"Authorization": "Bearer " + key},
		{"X-Api-Key": key},
		{"X-ObsiScripta-Api-Key": key},
		with(map[string]string{"Host": "notes.lan:3000"}),
		with(map[string]string{"Host": "[::1]:3000", "Origin": "http://localhost:8080"}),
		with(map[string]string{"Origin": "https://chat.example"}),
		// A page this server served under an allowed name (the consent
		// page at a tunnel's https address) posting back to it.
		with(map[string]string{"Host": "notes.lan", "Origin": "https://notes.lan"}),
		with(map[string]string{"Host": "notes.lan:443", "Origin": "https://notes.lan"}),
		with(map[string]string{"Host": "notes.lan:3000", "Origin": "http://notes.lan:3000"}),
	} {
		status, hdr, body := do(t, "POST", f.url, callBody("ok"), h)
		if status != 200 || !strings.Contains(body, "fine") {
			t.Errorf("%v: %d %s", h, status, body)
		}
		if o := h["Origin"]; o != "" && hdr.Get("Access-Control-Allow-Origin") != o {
			t.Errorf("%v: Access-Control-Allow-Origin = %q", h, hdr.Get("Access-Control-Allow-Origin"))
		}
	}
}

func TestCORSPreflight(t *testing.T) {
	f := newFixture(t, Options{})
	status, hdr, _ := do(t, "OPTIONS", f.url, "", map[string]string{"Origin": "http://127.0.0.1:5173", "Access-Control-Request-Method": "POST"})
	if status != 204 || hdr.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:5173" ||
		!strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "X-Api-Key") || !strings.Contains(hdr.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight from a loopback origin: %d %v", status, hdr)
	}
	status, hdr, _ = do(t, "OPTIONS", f.url, "", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
	if status != 403 || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from a foreign origin: %d %v", status, hdr)
	}
	open := newFixture(t, Options{CORSOrigins: []string{"*"}})
	if status, hdr, _ := do(t, "OPTIONS", open.url, "", map[string]string{"Origin": "https://any.example"}); status != 204 || hdr.Get("Access-Control-Allow-Origin") != "https://any.example" {
		t.Errorf("--cors-origin '*': %d %v", status, hdr)
	}
}

// TestTypedErrors: a tool's typed error keeps its code and data over HTTP,
// in a JSON answer and in an SSE one.
func TestTypedErrors(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tool := range []string{"missing", "chatty"} {
		status, hdr, body := do(t, "POST", f.url, callBody(tool), nil)
		if tool == "chatty" && !strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream") {
			t.Errorf("chatty answered as %s, want SSE", hdr.Get("Content-Type"))
		}
		if status != 200 || !strings.Contains(body, `"code":-32003`) || !strings.Contains(body, `"errorCode":"FILE_NOT_FOUND"`) || !strings.Contains(body, `"hint":"check the path"`) {
			t.Errorf("%s: %d %s", tool, status, body)
		}
		if strings.Contains(body, "-32603") {
			t.Errorf("%s: mcp-go's -32603 leaked: %s", tool, body)
		}
	}
}

// TestSessions: initialize issues a session; a request with an unknown or
// ended session is 404; a request with none is served alone.
func TestSessions(t *testing.T) {
	f := newFixture(t, Options{})
	status, hdr, body := do(t, "POST", f.url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	id := hdr.Get("Mcp-Session-Id")
	if status != 200 || len(id) != 32 {
		t.Fatalf("initialize: %d %q %s", status, id, body)
	}
	session := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	if status, _, body := do(t, "POST", f.url, listBody, session); status != 200 || !strings.Contains(body, `"name":"ok"`) {
		t.Errorf("list in the session: %d %s", status, body)
	}
	// The session's stream for server messages: GET answers SSE.
	getReq, _ := http.NewRequest("GET", f.url, nil)
	getReq.Header.Set("Accept", "text/event-stream")
	for k, v := range session {
		getReq.Header.Set(k, v)
	}
	ctx, cancel := context.WithCancel(t.Context())
	stream, err := http.DefaultClient.Do(getReq.WithContext(ctx))
	if err != nil || stream.StatusCode != 200 || !strings.HasPrefix(stream.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("GET stream: %v %+v", err, stream)
	}
	cancel()
	if stream != nil {
		stream.Body.Close()
	}
	if status, _, _ := do(t, "POST", f.url, listBody, map[string]string{"Mcp-Session-Id": "00000000000000000000000000000000"}); status != 404 {
		t.Errorf("an unknown session: %d, want 404", status)
	}
	if status, _, _ := do(t, "DELETE", f.url, "", session); status != 200 {
		t.Errorf("DELETE: %d", status)
	}
	if status, _, _ := do(t, "POST", f.url, listBody, session); status != 404 {
		t.Errorf("an ended session: %d, want 404", status)
	}
	if status, _, body := do(t, "POST", f.url, listBody, nil); status != 200 || !strings.Contains(body, `"name":"ok"`) {
		t.Errorf("no session: %d %s", status, body)
	}
}

// TestBusy: with every slot held by a call, another request waits until
// its deadline and is answered 503.
func TestBusy(t *testing.T) {
	f := newFixture(t, Options{MaxConcurrent: 1, CallTimeout: 300 * time.Millisecond})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(f.release) }) }) // before the server closes
	held := make(chan struct{})
	go func() {
		defer close(held)
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(callBody("block")))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	f.waitCall(t)
	if status, _, body := do(t, "POST", f.url, callBody("ok"), nil); status != 503 || !strings.Contains(body, "BUSY") {
		t.Errorf("a request over the cap: %d %s", status, body)
	}
	release.Do(func() { close(f.release) })
	<-held
}

// TestEveryEndpointNeedsTheKey: with a key set, no endpoint answers
// without it: 401 in the Bridge Protocol v1 error shape, or the envelope
// API's 200 AUTH_REQUIRED envelope on its own endpoints; and no tool runs.
func TestEveryEndpointNeedsTheKey(t *testing.T) {
	f := newFixture(t, Options{Key: mustKey(t, "every-endpoint-key-0123")})
	base := strings.TrimSuffix(f.url, "/mcp")
	for _, tc := range []struct {
		method, path, body string
		envelope           bool
	}{
		{"POST", "/mcp", listBody, false},
		{"GET", "/mcp", "", false},
		{"DELETE", "/mcp", "", false},
		{"GET", "/bridge/v1/health", "", false},
		{"GET", "/bridge/v1/tools", "", false},
		{"POST", "/bridge/v1/tools/ok/call", `{"arguments":{}}`, false},
		{"POST", "/mcp", `{"method":"call_tool","name":"ok","args":{}}`, true},
		{"POST", "/v1/mcp", `{"method":"call_tool","name":"ok","args":{}}`, true},
		{"GET", "/health", "", true},
		{"GET", "/v1/health", "", true},
	} {
		for _, key := range []string{"", "wrong-key-wrong-key-0123"} {
			h := map[string]string{}
			if key != "" {
				h["X-Api-Key"] = key
			}
			status, _, body := do(t, tc.method, base+tc.path, tc.body, h)
			if tc.envelope {
				if status != 200 || !strings.Contains(body, `"code":"AUTH_REQUIRED"`) || !strings.Contains(body, `"ok":false`) {
					t.Errorf("%s %s (key %q): %d %s", tc.method, tc.path, key, status, body)
				}
				continue
			}
			if status != 401 || !strings.Contains(body, `"error":"UNAUTHORIZED"`) {
				t.Errorf("%s %s (key %q): %d %s", tc.method, tc.path, key, status, body)
			}
		}
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("%d tools ran without the key", n)
	}
}

// TestStalledReaderFreesItsSlot: a client that asks for a big answer and
// stops reading holds its slot only until the write deadline; the next
// request is then served.
func TestStalledReaderFreesItsSlot(t *testing.T) {
	f := newFixture(t, Options{MaxConcurrent: 1, CallTimeout: 2 * time.Second, WriteMargin: 100 * time.Millisecond, MaxBody: 1 << 20})
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(f.url, "/mcp"), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := callBody("big")
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	f.waitCall(t)
	// The stalled call holds the only slot until its bound and margin
	// (2.1 s from its start, or as soon as its answer is encoded if that
	// is later: under -race on a busy machine, seconds later). Each
	// request waits up to two seconds for the slot and is answered BUSY
	// while it is still held; asked again, one is answered once the slot
	// is freed, long before the deadline, while the stalled reader still
	// holds its connection. No sleep: the retries are the wait.
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	for {
		status, _, answer := do(t, "POST", f.url, callBody("ok"), nil)
		if status == 200 && strings.Contains(answer, "fine") {
			break
		}
		if status != 503 || time.Now().After(deadline) {
			t.Fatalf("after a stalled reader: %d %.200s (after %v)", status, answer, time.Since(start))
		}
	}
}
