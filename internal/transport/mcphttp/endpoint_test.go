package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// newEndpoint serves, on a real loopback listener, a server whose
// "progress" tool sends n notifications before it answers.
func newEndpoint(t *testing.T) string {
	t.Helper()
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("progress", mcp.WithNumber("n")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := range req.GetInt("n", 0) {
			if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": i}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	ep, err := mcphttp.New(mcphttp.CorePeer{Core: protocol.New(s, protocol.Options{})}, mcphttp.Options{MessagePath: "/mcp/message"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", ep)
	mux.Handle("/mcp/message", ep)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.Close(); ep.Close() })
	return ts.URL + "/mcp"
}

func post(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

// sseData are the data lines of an SSE body, one event each.
func sseData(body string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestPOSTCarriesWhatTheCallSends: a call that sends notifications while
// no stream of its session is open is answered as an SSE stream: the
// notifications, in order, then the answer. A call that sends nothing is
// answered as JSON.
func TestPOSTCarriesWhatTheCallSends(t *testing.T) {
	url := newEndpoint(t)
	for _, n := range []int{0, 1, 5} {
		resp, body := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":%d}}}`, n+1, n))
		if n == 0 {
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(body, `"text":"done"`) {
				t.Errorf("n=0: %s %s, want the answer as JSON", ct, body)
			}
			continue
		}
		events := sseData(body)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || len(events) != n+1 {
			t.Fatalf("n=%d: %s with %d events, want SSE with %d:\n%s", n, ct, len(events), n+1, body)
		}
		for i, ev := range events[:n] {
			var m struct {
				Method string `json:"method"`
				Params struct {
					Data int `json:"data"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(ev), &m) != nil || m.Method != "notifications/message" || m.Params.Data != i {
				t.Errorf("n=%d: event %d is %s, want notification %d", n, i, ev, i)
			}
		}
		if last := events[n]; !strings.Contains(last, fmt.Sprintf(`"id":%d`, n+1)) || !strings.Contains(last, `"text":"done"`) {
			t.Errorf("n=%d: the last event is %s, want the answer", n, last)
		}
	}
}

// TestSessionsAndRevisions: initialize opens a session that later requests
// name; an unknown session is 404, a revision not spoken 400, and DELETE
// ends the session.
func TestSessionsAndRevisions(t *testing.T) {
	url := newEndpoint(t)
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := resp.Header.Get(mcphttp.HeaderSession)
	if resp.StatusCode != 200 || id == "" || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, id, body)
	}
	if resp, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, mcphttp.HeaderSession, id, mcphttp.HeaderProtocolVersion, "2025-06-18"); resp.StatusCode != 200 || !strings.Contains(body, `"result":{}`) {
		t.Errorf("ping in the session: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, url, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, mcphttp.HeaderSession, "nope"); resp.StatusCode != 404 || !strings.Contains(body, "SESSION_NOT_FOUND") {
		t.Errorf("unknown session: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, url, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, mcphttp.HeaderProtocolVersion, "2099-01-01"); resp.StatusCode != 400 || !strings.Contains(body, `"id":4,"error":{"code":-32022`) || !strings.Contains(body, `"supported":["2026-07-28"`) {
		t.Errorf("unknown revision: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, url, nil)
	req.Header.Set(mcphttp.HeaderSession, id)
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if resp, _ := post(t, url, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, mcphttp.HeaderSession, id); del.StatusCode != 200 || resp.StatusCode != 404 {
		t.Errorf("DELETE %d, then the session answered %d, want 404", del.StatusCode, resp.StatusCode)
	}
}
