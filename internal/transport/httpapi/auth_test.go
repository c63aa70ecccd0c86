package httpapi

import (
	"bufio"
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// tokens stands in for an issuer in these unit tests (the real one is
// cmd/obsidian-mcp's TestOAuthExternalIssuer): "rw" may write, "ro" may
// read, "none" may neither; anything else is invalid.
type tokens struct{}

func (tokens) Check(_ context.Context, token string) (oauth.Access, error) {
	switch token {
	case "rw":
		return oauth.Access{Scopes: []string{oauth.ScopeWrite}}, nil
	case "ro":
		return oauth.Access{Scopes: []string{oauth.ScopeRead}}, nil
	case "none":
		return oauth.Access{Scopes: []string{"openid"}}, nil
	}
	return oauth.Access{}, oauth.Invalid("it has expired")
}

// authServer serves one tool, whoami, which says whether its request is
// read-only, behind OAuth and the API key.
func authServer(t *testing.T) string {
	t.Helper()
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if no := (auth.Guard{Writes: auth.Writing}).Check(ctx, "whoami"); no != nil {
			return mcp.NewToolResultText("read-only: " + no.Rule), nil
		}
		return mcp.NewToolResultText("read-write"), nil
	})
	s.AddTool(mcp.NewTool("scribble"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("scribbled"), nil
	})
	h, err := New(protocol.New(s, protocol.Options{}), Options{Key: mustKey(t, "0123456789abcdef0123"), Guard: auth.Guard{Writes: func(tool string) bool { return tool == "scribble" }},
		OAuth: &bearer.Verifier{Resource: oauth.Resource{URL: "http://127.0.0.1/mcp", AuthServers: []string{"https://id.example"}, Scopes: oauth.Scopes}, Checker: tokens{}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// TestAuthorize: each credential gets its status, challenge and access:
// the metadata with none; the API key and a vault:write token read-write;
// a vault:read token read-only; a token with no vault scope 403; a bad
// token 401 invalid_token; none 401 pointing at the metadata.
func TestAuthorize(t *testing.T) {
	url := authServer(t)
	meta := strings.TrimSuffix(url, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	if status, _, body := do(t, "GET", meta, "", nil); status != 200 || !strings.Contains(body, `"resource":"http://127.0.0.1/mcp"`) {
		t.Errorf("metadata: %d %s", status, body)
	}
	// A read-only token calling a tool that writes gets the scope
	// challenge (step-up); with vault:write it is served.
	if status, hdr, body := do(t, "POST", url, callBody("scribble"), map[string]string{"Authorization": "Bearer ro"}); status != 403 ||
		!strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) || !strings.Contains(hdr.Get("WWW-Authenticate"), `scope="vault:read vault:write"`) ||
		!strings.Contains(body, "INSUFFICIENT_SCOPE") {
		t.Errorf("read-only, a write: %d %q %s", status, hdr.Get("WWW-Authenticate"), body)
	}
	// The same inside a batch, behind a read: the screen sees every
	// message, not the body's first.
	batch := "[" + callBody("whoami") + "," + strings.Replace(callBody("scribble"), `"id":7`, `"id":8`, 1) + "]"
	if status, hdr, body := do(t, "POST", url, batch, map[string]string{"Authorization": "Bearer ro"}); status != 403 ||
		!strings.Contains(hdr.Get("WWW-Authenticate"), `error_description="scribble changes the vault`) {
		t.Errorf("read-only, a write in a batch: %d %q %s", status, hdr.Get("WWW-Authenticate"), body)
	}
	if status, _, body := do(t, "POST", url, callBody("scribble"), map[string]string{"Authorization": "Bearer rw"}); status != 200 || !strings.Contains(body, "scribbled") {
		t.Errorf("read-write, a write: %d %s", status, body)
	}
	for _, c := range []struct {
		name      string
		headers   map[string]string
		status    int
		challenge string
		body      string
	}{
		{"none", nil, 401, `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp", scope="vault:read vault:write"`, "needs an OAuth access token"},
		{"the API key", map[string]string{"X-Api-Key": "0123456789abcdef0123"}, 200, "", `"text":"read-write"`},
		{"the API key as a bearer", map[string]string{"Authorization": "Bearer 0123456789abcdef0123"}, 200, "", `"text":"read-write"`},
		{"vault:write", map[string]string{"Authorization": "Bearer rw"}, 200, "", `"text":"read-write"`},
		{"vault:read", map[string]string{"Authorization": "Bearer ro"}, 200, "", `"text":"read-only: the access token grants vault:read, not vault:write"`},
		{"no vault scope", map[string]string{"Authorization": "Bearer none"}, 403, `error="insufficient_scope"`, "INSUFFICIENT_SCOPE"},
		{"a bad token", map[string]string{"Authorization": "Bearer zzz"}, 401, `error="invalid_token", error_description="the access token is not valid here: it has expired"`, "it has expired"},
	} {
		status, hdr, body := do(t, "POST", url, callBody("whoami"), c.headers)
		if status != c.status || !strings.Contains(hdr.Get("WWW-Authenticate"), c.challenge) || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d %q %s", c.name, status, hdr.Get("WWW-Authenticate"), body)
		}
	}
}

// TestAccessPerRequestOnSSE: on an HTTP+SSE session, a call posted to it
// has the access of its own request, not of the one that opened the
// stream: a stream opened with a vault:write token, a call posted with a
// vault:read one is read-only, and the other way round.
func TestAccessPerRequestOnSSE(t *testing.T) {
	url := authServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer rw")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET: %v %v", err, resp)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	next := func() string {
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return data
			}
		}
		t.Fatalf("the stream ended: %v", sc.Err())
		return ""
	}
	endpoint := next()
	base := strings.TrimSuffix(url, "/mcp")
	for _, c := range []struct{ token, want string }{{"ro", "read-only"}, {"rw", "read-write"}} {
		if status, _, body := do(t, "POST", base+endpoint, callBody("whoami"), map[string]string{"Authorization": "Bearer " + c.token}); status != 202 {
			t.Fatalf("POST %s: %d %s", endpoint, status, body)
		}
		if got := next(); !strings.Contains(got, `"text":"`+c.want) {
			t.Errorf("a call posted with %s: %s", c.token, got)
		}
	}
}

// TestHTTPSRequired: with OAuth, a request from another machine over
// plain HTTP is refused before its token is looked at; one through a
// proxy named in TrustedProxies passes when the proxy says https, and not
// when it says http; one from another address saying https is not
// believed; this machine (a tunnel's end) and the server's own TLS pass.
func TestHTTPSRequired(t *testing.T) {
	proxies, err := ParseProxies("192.0.2.10, 198.51.100.0/24")
	if err != nil {
		t.Fatal(err)
	}
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("test", "1.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	h, err := New(protocol.New(s, protocol.Options{}), Options{TrustedProxies: proxies,
		OAuth: &bearer.Verifier{Resource: oauth.Resource{URL: "https://vault.example.com/mcp", AuthServers: []string{"https://id.example"}, Scopes: oauth.Scopes}, Checker: tokens{}}})
	if err != nil {
		t.Fatal(err)
	}
	handler := h.Handler()
	for _, c := range []struct {
		name, remote, proto string
		tls                 bool
		status              int
	}{
		{"another machine, plain HTTP", "203.0.113.5:4000", "", false, 403},
		{"another machine claiming https", "203.0.113.5:4000", "https", false, 403},
		{"the trusted proxy, https", "192.0.2.10:4000", "https", false, 200},
		{"a proxy of the trusted network, https", "198.51.100.77:4000", "https", false, 200},
		{"the trusted proxy, http", "192.0.2.10:4000", "http", false, 403},
		{"this machine", "127.0.0.1:4000", "", false, 200},
		{"this machine, IPv6", "[::1]:4000", "", false, 200},
		{"the server's own TLS", "203.0.113.5:4000", "", true, 200},
	} {
		req := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(listBody))
		req.RemoteAddr = c.remote
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer rw")
		if c.proto != "" {
			req.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if c.tls {
			req.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, req)
		if w.Code != c.status || c.status == 403 && !strings.Contains(w.Body.String(), "HTTPS_REQUIRED") {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body)
		}
	}
}
