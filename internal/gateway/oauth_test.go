package gateway

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// audienceTokens stands in for an issuer (the real one is in
// cmd/obsidian-mcp's TestGatewayOAuth): "rw@R" may write and "ro@R" read
// resource R; anything else, or a token for another resource, is invalid.
type audienceTokens struct{ resource string }

func (a audienceTokens) Check(_ context.Context, token string) (oauth.Access, error) {
	scope, resource, _ := strings.Cut(token, "@")
	if resource != a.resource {
		return oauth.Access{}, oauth.Invalid("it was issued for another resource")
	}
	switch scope {
	case "rw":
		return oauth.Access{Scopes: []string{oauth.ScopeWrite}}, nil
	case "ro":
		return oauth.Access{Scopes: []string{oauth.ScopeRead}}, nil
	}
	return oauth.Access{}, oauth.Invalid("unknown")
}

// TestOAuthNamespaces: with oauth.issuer, each namespace is a resource of
// its own: its metadata at its RFC 9728 path, a 401 pointing there without
// a token, its own tokens accepted and another namespace's refused; a
// read-only token lists a command namespace's tools but calls none, and
// on a vault namespace its call to a tool that writes is refused with the
// scope challenge (step-up), its other calls served; the
// API key works beside tokens; /health stays behind the key alone; the
// dashboard's data takes a token for its own resource, or the key.
func TestOAuthNamespaces(t *testing.T) {
	ns, _ := fakeNamespace(t, "fake")
	key, err := httpapi.NewKey("the-gateway-key-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	opts := fastBackoff
	opts.Key = key
	opts.Tokens = func(resource string) bearer.TokenChecker { return audienceTokens{resource} }
	r := startGatewayWith(t, "oauth:\n  issuer: https://id.example.com\nnamespaces:\n  notes:\n    vault_path: /n\n"+ns, opts)
	notes, fake := r.api+"/mcp/notes", r.api+"/mcp/fake"
	auth := func(token string) []string { return []string{"Authorization", "Bearer " + token} }

	resp, body := do(t, http.MethodGet, r.api+"/.well-known/oauth-protected-resource/mcp/notes", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"resource":"`+notes+`"`) || !strings.Contains(body, `"authorization_servers":["https://id.example.com"]`) {
		t.Errorf("metadata: %d %s", resp.StatusCode, body)
	}
	for _, c := range []struct {
		name      string
		url, body string
		headers   []string
		status    int
		want      string
	}{
		{"no token", notes, call(1, "echo", `{"text":"a"}`), nil, 401, `resource_metadata="` + r.api + `/.well-known/oauth-protected-resource/mcp/notes"`},
		{"its own token", notes, call(1, "echo", `{"text":"mine"}`), auth("rw@" + notes), 200, `"text":"mine"`},
		{"another namespace's token", fake, call(1, "echo", `{"text":"a"}`), auth("rw@" + notes), 401, `error="invalid_token"`},
		{"the command namespace's own", fake, call(1, "echo", `{"text":"cmd"}`), auth("rw@" + fake), 200, `"text":"cmd"`},
		{"read-only, listing", fake, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, auth("ro@" + fake), 200, `"name":"echo"`},
		{"read-only, calling another server (its tools may write)", fake, call(3, "echo", `{"text":"a"}`), auth("ro@" + fake), 403, `error="insufficient_scope", error_description="echo changes the vault`},
		{"read-only, reading a vault", notes, call(5, "echo", `{"text":"ro"}`), auth("ro@" + notes), 200, `"text":"ro"`},
		{"read-only, writing a vault", notes, call(6, "write", `{}`), auth("ro@" + notes), 403, `error="insufficient_scope", error_description="write changes the vault, and the token grants vault:read only", scope="vault:read vault:write"`},
		{"read-write, writing a vault", notes, call(7, "write", `{}`), auth("rw@" + notes), 200, `"text":"written"`},
		{"the API key", fake, call(4, "echo", `{"text":"keyed"}`), []string{"X-Api-Key", "the-gateway-key-0123456789"}, 200, `"text":"keyed"`},
		{"health without the key", r.api + "/health", "", auth("rw@" + notes), 401, `"UNAUTHORIZED"`},
	} {
		method := http.MethodPost
		if c.body == "" {
			method = http.MethodGet
		}
		resp, body := do(t, method, c.url, c.body, c.headers...)
		if resp.StatusCode != c.status || !strings.Contains(body+resp.Header.Get("WWW-Authenticate"), c.want) {
			t.Errorf("%s: %d %q %s", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// The dashboard's data is a resource of its own on the debug
	// listener; its page holds no data and stays open.
	dash := r.debug + "/debug"
	resp, body = do(t, http.MethodGet, r.debug+"/.well-known/oauth-protected-resource/debug", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"resource":"`+dash+`"`) {
		t.Errorf("the dashboard's metadata: %d %s", resp.StatusCode, body)
	}
	for _, c := range []struct {
		name, path string
		headers    []string
		status     int
		want       string
	}{
		{"the page", "/debug", nil, 200, "<html"},
		{"no token", "/debug/state", nil, 401, `resource_metadata="` + r.debug + `/.well-known/oauth-protected-resource/debug"`},
		{"a namespace's token", "/debug/state", auth("rw@" + notes), 401, `error="invalid_token"`},
		{"its own token", "/debug/state", auth("ro@" + dash), 200, `"namespaces"`},
		{"the API key", "/debug/state", []string{"X-Api-Key", "the-gateway-key-0123456789"}, 200, `"namespaces"`},
	} {
		resp, body := do(t, http.MethodGet, r.debug+c.path, "", c.headers...)
		if resp.StatusCode != c.status || !strings.Contains(body+resp.Header.Get("WWW-Authenticate"), c.want) {
			t.Errorf("dashboard, %s: %d %q %.200s", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	if n := r.ts.wrote.Load(); n != 1 {
		t.Errorf("write ran %d times, want 1 (the read-write call's)", n)
	}
}

// TestOAuthNeedsHTTPS: with OAuth, a namespace and the dashboard's data
// take a request from another machine only over HTTPS: the gateway's own
// TLS, or a proxy named in behind_proxy that says https. Such a request
// over plain HTTP is 403 HTTPS_REQUIRED before its token is looked at; one
// from this machine (a tunnel's end) is not.
func TestOAuthNeedsHTTPS(t *testing.T) {
	opts := fastBackoff
	opts.Tokens = func(resource string) bearer.TokenChecker { return audienceTokens{resource} }
	cfg, err := Parse("gateway.yaml", []byte("oauth:\n  issuer: https://id.example.com\nbehind_proxy: [192.168.1.10]\nnamespaces:\n  notes:\n    vault_path: /n\n"))
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{release: make(chan struct{}), started: make(chan struct{}, 1)}
	opts.OpenVault = func(Namespace) (*VaultServer, error) { return ts.vault(), nil }
	g, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	// What Serve does first, with the listeners' addresses.
	here := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	g.protect(here, here)
	for _, c := range []struct {
		name, remote, proto string
		tls                 bool
		debug               bool
		status              int
	}{
		{"another machine, plain HTTP", "192.168.1.20:5000", "", false, false, http.StatusForbidden},
		{"another machine claiming https", "192.168.1.20:5000", "https", false, false, http.StatusForbidden},
		{"the proxy, https", "192.168.1.10:5000", "https", false, false, http.StatusUnauthorized},
		{"the proxy, plain HTTP", "192.168.1.10:5000", "http", false, false, http.StatusForbidden},
		{"another machine, TLS", "192.168.1.20:5000", "", true, false, http.StatusUnauthorized},
		{"this machine", "127.0.0.1:5000", "", false, false, http.StatusUnauthorized},
		{"the dashboard's data, plain HTTP", "192.168.1.20:5000", "", false, true, http.StatusForbidden},
		{"the dashboard's data, this machine", "127.0.0.1:5000", "", false, true, http.StatusUnauthorized},
	} {
		h, path := g.Handler(), "/mcp/notes"
		if c.debug {
			h, path = g.DebugHandler(), "/debug/state"
		}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+path, strings.NewReader(call(1, "echo", `{"text":"a"}`)))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = c.remote
		if c.proto != "" {
			req.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if c.tls {
			req.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != c.status || c.status == http.StatusForbidden && !strings.Contains(w.Body.String(), "HTTPS_REQUIRED") {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body.String())
		}
	}
}
