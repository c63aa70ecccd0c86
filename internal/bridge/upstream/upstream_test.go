package upstream

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// ours is our own HTTP server (internal/transport/httpapi: /mcp and /bridge/v1) on a
// real listener, over an MCP server with an echo tool; runs counts calls.
func ours(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var runs atomic.Int64
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("ours", "1.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	h, err := httpapi.New(protocol.New(s, protocol.Options{}), httpapi.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	return ts.URL, &runs
}

func newMCP(base string) *MCP {
	return &MCP{URL: base + "/mcp", HTTP: http.DefaultClient, ClientName: "test", ClientVersion: "1"}
}

// TestBothTransportsAgainstOurServer: MCP (with a session) and v1 list the
// same tools and give the same answer.
func TestBothTransportsAgainstOurServer(t *testing.T) {
	base, runs := ours(t)
	ctx := t.Context()
	m, v := newMCP(base), &V1{Base: base, HTTP: http.DefaultClient}
	for _, tr := range []Transport{m, v} {
		if err := tr.Health(ctx); err != nil {
			t.Fatalf("%s health: %v", tr.Name(), err)
		}
		tools, hash, err := tr.Tools(ctx)
		if err != nil || len(tools) != 1 || tools[0].Name != "echo" || len(hash) != 64 {
			t.Fatalf("%s tools: %+v %q %v", tr.Name(), tools, hash, err)
		}
		res, err := tr.Call(ctx, "echo", json.RawMessage(`{"text":"hi"}`))
		if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(string(res.Content[0]), `"text":"echo: hi"`) {
			t.Errorf("%s call: %+v %v", tr.Name(), res, err)
		}
	}
	if m.session == "" {
		t.Error("MCP did not open a session with a server that has them")
	}
	if runs.Load() != 2 {
		t.Errorf("%d runs for 2 calls", runs.Load())
	}
}

// standIn is a scripted server: handlers per path, and a log of requests.
type standIn struct {
	mu     sync.Mutex
	log    []string
	routes map[string]http.HandlerFunc
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	key := r.Method + " " + r.URL.Path
	if msg.Method != "" {
		key += " " + msg.Method
	}
	s.mu.Lock()
	s.log = append(s.log, key)
	h := s.routes[key]
	if h == nil {
		h = s.routes[r.Method+" "+r.URL.Path]
	}
	s.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	h(w, r)
}

func (s *standIn) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.log {
		if k == key {
			n++
		}
	}
	return n
}

func rpc(w http.ResponseWriter, r *http.Request, result string) {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.NewDecoder(r.Body).Decode(&msg)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,`+result+`}`)
}

var v1Routes = map[string]http.HandlerFunc{
	"GET /bridge/v1/health": func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"status":"ok","version":"1","protocolVersion":"1"}`)
	},
	"GET /bridge/v1/tools": func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"hash":"abc"}`)
	},
	"POST /bridge/v1/tools/echo/call": func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"success":true,"content":[{"type":"text","text":"v1"}]}`)
	},
}

func withRoutes(extra map[string]http.HandlerFunc) *standIn {
	s := &standIn{routes: map[string]http.HandlerFunc{}}
	for k, v := range v1Routes {
		s.routes[k] = v
	}
	for k, v := range extra {
		s.routes[k] = v
	}
	return s
}

func autoOn(t *testing.T, s *standIn) *Auto {
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &Auto{MCP: newMCP(ts.URL), V1: &V1{Base: ts.URL, HTTP: http.DefaultClient}}
}

// TestAutoFallsBackForListing: with no /mcp, listing falls back to v1,
// and v1 stays in use.
func TestAutoFallsBackForListing(t *testing.T) {
	s := withRoutes(nil)
	a := autoOn(t, s)
	tools, hash, err := a.Tools(t.Context())
	if err != nil || len(tools) != 1 || hash != "abc" || a.Name() != "v1" {
		t.Fatalf("tools = %+v %q %v, transport %s", tools, hash, err, a.Name())
	}
	before := s.count("POST /mcp tools/list")
	if _, _, err := a.Tools(t.Context()); err != nil || s.count("POST /mcp tools/list") != before {
		t.Errorf("MCP was tried again after the fallback: %v", err)
	}
}

// TestAutoCallFallback: a call falls back only when MCP proves it did not
// run; a 500 is returned as it is and v1 is not asked, so no call runs twice.
func TestAutoCallFallback(t *testing.T) {
	for _, tc := range []struct {
		name     string
		call     http.HandlerFunc
		fallBack bool
	}{
		{"-32601", func(w http.ResponseWriter, r *http.Request) {
			rpc(w, r, `"error":{"code":-32601,"message":"Method not found"}`)
		}, true},
		{"404", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "not here", http.StatusNotFound) }, true},
		{"405", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusMethodNotAllowed) }, true},
		{"501", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotImplemented) }, true},
		{"500 with an HTML body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "<html>oops</html>")
		}, false},
		{"-32603", func(w http.ResponseWriter, r *http.Request) { rpc(w, r, `"error":{"code":-32603,"message":"boom"}`) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := withRoutes(map[string]http.HandlerFunc{
				"POST /mcp initialize": func(w http.ResponseWriter, r *http.Request) {
					rpc(w, r, `"error":{"code":-32601,"message":"Method not found"}`)
				},
				"POST /mcp tools/call": tc.call,
			})
			a := autoOn(t, s)
			res, err := a.Call(t.Context(), "echo", json.RawMessage(`{}`))
			v1Calls := s.count("POST /bridge/v1/tools/echo/call")
			if tc.fallBack {
				if err != nil || res == nil || !strings.Contains(string(res.Content[0]), "v1") || v1Calls != 1 || a.Name() != "v1" {
					t.Errorf("want one v1 call after the fallback: %+v %v (v1 calls %d, transport %s)", res, err, v1Calls, a.Name())
				}
				return
			}
			if err == nil || v1Calls != 0 || a.Name() != "mcp" {
				t.Errorf("want the MCP failure and no v1 call: %+v %v (v1 calls %d)", res, err, v1Calls)
			}
			if s.count("POST /mcp tools/call") != 1 {
				t.Errorf("the MCP call was sent %d times", s.count("POST /mcp tools/call"))
			}
		})
	}
}

// TestSessionlessServer: a server without initialize (ObsiScripta) is
// spoken to without a session; an SSE answer is read.
func TestSessionlessServer(t *testing.T) {
	var sawSession atomic.Bool
	s := withRoutes(map[string]http.HandlerFunc{
		"POST /mcp initialize": func(w http.ResponseWriter, r *http.Request) {
			rpc(w, r, `"error":{"code":-32601,"message":"Method not found"}`)
		},
		"POST /mcp tools/list": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Session-Id") != "" {
				sawSession.Store(true)
			}
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.NewDecoder(r.Body).Decode(&msg)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"+
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(msg.ID)+",\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}}\n\n")
		},
	})
	a := autoOn(t, s)
	tools, _, err := a.MCP.Tools(t.Context())
	if err != nil || len(tools) != 1 || sawSession.Load() {
		t.Errorf("tools over SSE, session-less: %+v %v (session sent: %v)", tools, err, sawSession.Load())
	}
}

// TestSessionReopened: a 404 for the session (the server restarted) opens
// a new one and sends the request again, once.
func TestSessionReopened(t *testing.T) {
	var inits atomic.Int64
	var valid atomic.Value
	s := withRoutes(map[string]http.HandlerFunc{
		"POST /mcp initialize": func(w http.ResponseWriter, r *http.Request) {
			id := "s" + string(rune('0'+inits.Add(1)))
			valid.Store(id)
			w.Header().Set("Mcp-Session-Id", id)
			rpc(w, r, `"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`)
		},
		"POST /mcp notifications/initialized": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) },
		"POST /mcp tools/list": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Session-Id") != valid.Load() || r.Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
				http.Error(w, "no such session", http.StatusNotFound)
				return
			}
			rpc(w, r, `"result":{"tools":[]}`)
		},
	})
	a := autoOn(t, s)
	if _, _, err := a.MCP.Tools(t.Context()); err != nil {
		t.Fatal(err)
	}
	valid.Store("restarted")
	if _, _, err := a.MCP.Tools(t.Context()); err != nil || inits.Load() != 2 {
		t.Errorf("after the server forgot the session: %v, %d initializes", err, inits.Load())
	}
}

// TestHashIgnoresKeyOrder: the MCP hash is over a canonical form.
func TestHashIgnoresKeyOrder(t *testing.T) {
	a, _ := canonicalHash([]Tool{{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}})
	b, _ := canonicalHash([]Tool{{Name: "x", InputSchema: json.RawMessage(`{"properties":{"a":{"type":"string"}},"type":"object"}`)}})
	c, _ := canonicalHash([]Tool{{Name: "x", InputSchema: json.RawMessage(`{"properties":{"b":{"type":"string"}},"type":"object"}`)}})
	if a != b || a == c {
		t.Errorf("hashes %s %s %s: key order must not count, a change must", a, b, c)
	}
}

// TestAPIKeyOnlyToMCP: the key goes with every MCP request as
// X-ObsiScripta-Api-Key and never to the Bridge Protocol v1.
func TestAPIKeyOnlyToMCP(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], r.Header.Get("X-ObsiScripta-Api-Key")+"|"+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/mcp" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		v1Routes[r.Method+" "+r.URL.Path](w, r)
	}))
	t.Cleanup(ts.Close)
	m := newMCP(ts.URL)
	m.APIKey = "k3y"
	a := &Auto{MCP: m, V1: &V1{Base: ts.URL, HTTP: http.DefaultClient}}
	if _, _, err := a.Tools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Call(t.Context(), "echo", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for path, keys := range seen {
		for _, k := range keys {
			if path == "/mcp" && k != "k3y|" || path != "/mcp" && k != "|" {
				t.Errorf("%s got key headers %q", path, k)
			}
		}
	}
	if len(seen["/mcp"]) == 0 || len(seen) < 2 {
		t.Errorf("requests seen: %v", seen)
	}
}
