package gateway

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

const testKey = "gateway-test-key-0123456789"

func keyOf(t *testing.T, s string) httpapi.Key {
	t.Helper()
	k, err := httpapi.NewKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestGatewayKey: with a key, every endpoint of the API listener asks for
// it (each of the three headers serve takes works; a wrong key and a
// missing one are told apart), and so does the debug listener, whose page
// alone, holding no data, is open: the key posted to /debug/login gives a
// cookie that opens the rest of the debug listener and nothing on the API.
func TestGatewayKey(t *testing.T) {
	t.Parallel()
	r := startGatewayWith(t, twoVaults, Options{Key: keyOf(t, testKey)})
	for _, tc := range []struct {
		method, url, body string
		headers           []string
		want              int
		says              string
	}{
		{"GET", r.api + "/health", "", nil, 401, "needs its API key"},
		{"GET", r.api + "/health/notes", "", nil, 401, "needs its API key"},
		{"POST", r.api + "/mcp/notes", initBody, nil, 401, "needs its API key"},
		{"GET", r.api + "/mcp/notes", "", nil, 401, "needs its API key"},
		{"POST", r.api + "/mcp/notes", initBody, []string{"X-Api-Key", "not-the-key-0123456789"}, 401, "the API key is wrong"},
		{"POST", r.api + "/mcp/notes", initBody, []string{"Authorization", "Bearer " + testKey}, 200, `"serverInfo"`},
		{"POST", r.api + "/mcp/notes", initBody, []string{"X-Api-Key", testKey}, 200, `"serverInfo"`},
		{"POST", r.api + "/mcp/notes", initBody, []string{"X-ObsiScripta-Api-Key", testKey}, 200, `"serverInfo"`},
		{"GET", r.api + "/health", "", []string{"X-Api-Key", testKey}, 200, "healthy"},
		// A preflight carries no credentials; it is answered, and the
		// request it announces still needs the key.
		{"OPTIONS", r.api + "/mcp/notes", "", []string{"Origin", "http://localhost:3000", "Access-Control-Request-Method", "POST"}, 200, ""},
		{"GET", r.debug + "/debug", "", nil, 200, "asks for its API key"},
		{"GET", r.debug + "/debug/state", "", nil, 401, "needs its API key"},
		{"GET", r.debug + "/debug/stream", "", nil, 401, "needs its API key"},
		{"POST", r.debug + "/debug/login", "", []string{"Authorization", "Bearer wrong-key-0123456789"}, 401, "the API key is wrong"},
		{"GET", r.debug + "/debug/state", "", []string{"X-Api-Key", testKey}, 200, `"namespaces"`},
	} {
		resp, body := do(t, tc.method, tc.url, tc.body, append(tc.headers, "Accept", "application/json, text/event-stream")...)
		if resp.StatusCode != tc.want || !strings.Contains(body, tc.says) {
			t.Errorf("%s %s %q: %d %.200s; want %d with %q", tc.method, tc.url, tc.headers, resp.StatusCode, body, tc.want, tc.says)
		}
		if tc.want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s %s: a 401 without WWW-Authenticate", tc.method, tc.url)
		}
	}

	resp, _ := do(t, "POST", r.debug+"/debug/login", "", "Authorization", "Bearer "+testKey)
	var pass *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == passCookie {
			pass = c
		}
	}
	if resp.StatusCode != http.StatusNoContent || pass == nil || !pass.HttpOnly || pass.SameSite != http.SameSiteStrictMode || pass.Path != "/debug" ||
		strings.Contains(pass.Value, testKey) {
		t.Fatalf("login: %d, cookie %+v", resp.StatusCode, pass)
	}
	if resp, body := do(t, "GET", r.debug+"/debug/state", "", "Cookie", pass.String()); resp.StatusCode != 200 || !strings.Contains(body, `"namespaces"`) {
		t.Errorf("the dashboard's state with its pass: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := do(t, "GET", r.api+"/health", "", "Cookie", pass.String()); resp.StatusCode != 401 {
		t.Errorf("the dashboard's pass opened the API: %d", resp.StatusCode)
	}
	if resp, _ := do(t, "GET", r.debug+"/debug/state", "", "Cookie", passCookie+"=guessed"); resp.StatusCode != 401 {
		t.Errorf("a made-up pass: %d", resp.StatusCode)
	}
}

// TestGatewayKeyBeforeBody: without the key, a POST is refused from its
// headers, before a byte of the body it announces is sent.
func TestGatewayKeyBeforeBody(t *testing.T) {
	t.Parallel()
	r := startGatewayWith(t, twoVaults, Options{Key: keyOf(t, testKey)})
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(r.api, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /mcp/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 1<<20)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body was sent: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
}

// TestCheckExposure: no listener beyond loopback without a key, the
// dashboard's included; with a key, either may. With OAuth the API
// listener needs no key, but HTTPS (tls, or a proxy that ends it).
func TestCheckExposure(t *testing.T) {
	t.Parallel()
	proxy, _ := httpapi.ParseProxies("192.168.1.10")
	for _, tc := range []struct {
		listen, debug string
		key           bool
		want          []string
		oauth         func(*Config)
	}{
		{"0.0.0.0:8080", "127.0.0.1:8081", false, []string{"with OAuth, but over plain HTTP"}, func(c *Config) { c.OAuth.BuiltIn = true }},
		{"0.0.0.0:8080", "127.0.0.1:8081", true, []string{"with OAuth, but over plain HTTP"}, func(c *Config) { c.OAuth.Issuer = "https://id.example.com" }},
		{"0.0.0.0:8080", "127.0.0.1:8081", false, nil, func(c *Config) { c.OAuth.BuiltIn, c.TLSCert = true, "cert.pem" }},
		{"0.0.0.0:8080", "127.0.0.1:8081", false, nil, func(c *Config) { c.OAuth.BuiltIn, c.BehindProxy = true, proxy }},
		{"0.0.0.0:8080", "0.0.0.0:8081", false, []string{"debug_listen 0.0.0.0:8081 reaches beyond"}, func(c *Config) { c.OAuth.BuiltIn, c.TLSCert = true, "cert.pem" }},
		{"127.0.0.1:8080", "127.0.0.1:8081", false, nil, func(c *Config) { c.OAuth.BuiltIn = true }},
		{"127.0.0.1:8080", "127.0.0.1:8081", false, nil, nil},
		{"localhost:8080", "[::1]:8081", false, nil, nil},
		{"0.0.0.0:8080", "127.0.0.1:8081", false, []string{"listen 0.0.0.0:8080 reaches beyond this machine, and no API key is set"}, nil},
		{"127.0.0.1:8080", ":8081", false, []string{"debug_listen :8081 reaches beyond"}, nil},
		{"0.0.0.0:8080", "0.0.0.0:8081", false, []string{"listen 0.0.0.0", "debug_listen 0.0.0.0", "OBSIDIAN_MCP_API_KEY or --api-key-file"}, nil},
		{"0.0.0.0:8080", "0.0.0.0:8081", true, nil, nil},
	} {
		var key httpapi.Key
		if tc.key {
			key = keyOf(t, testKey)
		}
		cfg := &Config{Listen: tc.listen, DebugListen: tc.debug}
		if tc.oauth != nil {
			tc.oauth(cfg)
		}
		err := CheckExposure(cfg, key)
		if (err != nil) != (tc.want != nil) {
			t.Errorf("%s, %s, key %v: %v", tc.listen, tc.debug, tc.key, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s, %s: %v; lacks %q", tc.listen, tc.debug, err, w)
			}
		}
	}
}
