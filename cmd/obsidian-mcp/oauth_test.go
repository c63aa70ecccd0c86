package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve as an OAuth resource server trusting a real authorization server:
// node-oidc-provider (scripts/clients/oidc-issuer.mjs, pinned in the
// lock file), started here on a free loopback port, which mints the JWT
// access tokens the tests present.

// oidcIssuer starts the authorization server and returns its URL and a
// function that gets an access token for resource with scope ("" for
// none) by the client credentials grant.
func oidcIssuer(t *testing.T) (string, func(resource, scope string) string) {
	t.Helper()
	return startIssuer(t, "jwt", false)
}

// The resource server's own client at the issuer, for introspection.
const rsClient, rsSecret = "obsidian-mcp", "rs-secret-0123456789abcdef"

// startIssuer is oidcIssuer with tokens in format (jwt or opaque);
// interactive, it also registers apps and signs people in (any login).
func startIssuer(t *testing.T, format string, interactive bool) (string, func(resource, scope string) string) {
	t.Helper()
	plan := filepath.Join(t.TempDir(), "issuer.json")
	const id, secret = "tests", "tests-secret-0123456789abcdef"
	if err := os.WriteFile(plan, fmt.Appendf(nil, `{"format":%q,"interactive":%t,"clients":[{"client_id":%q,"client_secret":%q,"grant_types":["client_credentials"],"redirect_uris":[],"response_types":[],"token_endpoint_auth_method":"client_secret_post"},`+
		`{"client_id":%q,"client_secret":%q,"grant_types":[],"redirect_uris":[],"response_types":[]}]}`, format, interactive, id, secret, rsClient, rsSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node(t), "oidc-issuer.mjs", plan)
	cmd.Dir = clientsDir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // it exits when its input ends
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the authorization server did not exit within 10 s of its input's end")
		}
	})
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var started struct{ Issuer string }
	select {
	case line := <-first:
		if err := json.Unmarshal([]byte(line), &started); err != nil || started.Issuer == "" {
			t.Fatalf("the authorization server did not start: %q\n%s", line, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the authorization server did not start within 20 s\n%s", stderr.String())
	}
	token := func(resource, scope string) string {
		t.Helper()
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "resource": {resource}}
		if scope != "" {
			form.Set("scope", scope)
		}
		resp, err := http.PostForm(started.Issuer+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got struct {
			AccessToken string `json:"access_token"`
		}
		body, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(body, &got); err != nil || got.AccessToken == "" {
			t.Fatalf("token for %s (%s): %d %s", resource, scope, resp.StatusCode, body)
		}
		return got.AccessToken
	}
	return started.Issuer, token
}

// TestOAuthExternalIssuer: serve --oauth-issuer with a real authorization
// server. A client finds where to sign in from the Protected Resource
// Metadata and the 401's challenge; the TypeScript SDK with a token for
// vault:write reads and writes a note; and every bad token is refused
// with the status and challenge the MCP authorization spec gives, nothing
// written: none, one for another resource, one whose signature is not the
// issuer's, one with no vault scope (403), and a vault:read one writing
// (403 insufficient_scope: the scope challenge for step-up). The API key
// keeps working beside it.
func TestOAuthExternalIssuer(t *testing.T) {
	outside(t)
	t.Parallel()
	issuer, token := oidcIssuer(t)
	vault, hello := helloVault(t, "# Hello\n")
	const key = "the-api-key-0123456789abcdef"
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth-issuer", issuer}, "OBSIDIAN_MCP_API_KEY="+key)
	defer s.stop(t)
	metadataURL := strings.TrimSuffix(s.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp"

	// The metadata names this server and its authorization server.
	resp, err := http.Get(metadataURL)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if resp.StatusCode != 200 || meta.Resource != s.url || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != issuer {
		t.Fatalf("metadata: %d %+v", resp.StatusCode, meta)
	}

	// The TypeScript SDK, with a token for this server that may write.
	rw := token(s.url, "vault:read vault:write")
	var got struct {
		Tools []string
		Steps []outcome
	}
	tsClient(t, "calls", map[string]any{"url": s.url, "headers": map[string]string{"Authorization": "Bearer " + rw}, "steps": []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
		{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Hello.md", "content": "written with a token"}},
	}}, &got)
	if len(got.Steps) != 2 || got.Steps[0].Result == nil || got.Steps[1].Result == nil || got.Steps[1].Result.IsError {
		t.Fatalf("the SDK's calls: %+v", got.Steps)
	}
	if data, _ := os.ReadFile(hello); !strings.Contains(string(data), "written with a token") {
		t.Fatalf("the note after the SDK's write: %q", data)
	}

	// Every other request tries to write; only the API key's may.
	before, _ := os.ReadFile(hello)
	write := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_append_to_note","arguments":{"path":"Hello.md","content":"must not appear"}}}`
	tampered := rw[:len(rw)-4] + strings.Map(func(r rune) rune {
		if r == 'A' {
			return 'B'
		}
		return 'A'
	}, rw[len(rw)-4:])
	for _, c := range []struct {
		name, header    string
		status          int
		challenge, body string
	}{
		{"no token", "", 401, `resource_metadata="` + metadataURL + `"`, `"UNAUTHORIZED"`},
		{"a token for another resource", "Bearer " + token("http://127.0.0.1:1/mcp", "vault:read vault:write"), 401, `error="invalid_token"`, "another resource"},
		{"a token whose signature is not the issuer's", "Bearer " + tampered, 401, `error="invalid_token"`, "signature"},
		{"a token with no vault scope", "Bearer " + token(s.url, ""), 403, `error="insufficient_scope"`, `"INSUFFICIENT_SCOPE"`},
		{"a vault:read token writing", "Bearer " + token(s.url, "vault:read"), 403, `error="insufficient_scope", error_description="obsidian_append_to_note changes the vault, and the token grants vault:read only", scope="vault:read vault:write"`, `"INSUFFICIENT_SCOPE"`},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(write))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.header != "" {
			req.Header.Set("Authorization", c.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(resp.Header.Get("WWW-Authenticate"), c.challenge) || !strings.Contains(string(body), c.body) {
			t.Errorf("%s: %d %q %s", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		if strings.Contains(s.stderr.String(), strings.TrimPrefix(c.header, "Bearer ")) && c.header != "" {
			t.Errorf("%s: the token is in the log", c.name)
		}
	}
	if after, _ := os.ReadFile(hello); string(after) != string(before) {
		t.Errorf("a refused request wrote: %q", after)
	}
	// A vault:read token lists no tool that writes.
	ro := token(s.url, "vault:read")
	tsClient(t, "calls", map[string]any{"url": s.url, "headers": map[string]string{"Authorization": "Bearer " + ro}, "steps": []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
	}}, &got)
	for _, name := range got.Tools {
		if name == "obsidian_append_to_note" {
			t.Errorf("a vault:read token is offered %s", name)
		}
	}
	// The API key, beside OAuth.
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(write))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if after, _ := os.ReadFile(hello); resp.StatusCode != 200 || !strings.Contains(string(after), "must not appear") {
		t.Errorf("the API key: %d %s", resp.StatusCode, body)
	}
	if t.Failed() {
		t.Logf("serve's stderr:\n%s", s.stderr)
	}
}

// TestGatewayOAuth: a gateway with oauth.issuer set to a real
// authorization server: each namespace is a resource of its own. The
// TypeScript SDK with a vault:write token for the vault namespace reads
// and writes there; that token is refused by the command namespace
// (another resource); a vault:read token for the vault namespace cannot
// write (PERMISSION_DENIED), and one for the command namespace (this
// program over stdio) lists its tools but calls none.
func TestGatewayOAuth(t *testing.T) {
	outside(t)
	t.Parallel()
	issuer, token := oidcIssuer(t)
	vault, hello := helloVault(t, "# Hello\n")
	g := gateway(t, fmt.Sprintf("oauth:\n  issuer: %q\nnamespaces:\n  notes:\n    vault_path: %q\n  stdio:\n    command: %q\n    args: [--backend, native, --vault-path, %q]\n",
		issuer, vault, binary, vault))
	defer g.stop(t)
	notes, stdio := g.url+"/mcp/notes", g.url+"/mcp/stdio"

	var got struct {
		Tools []string
		Steps []outcome
	}
	tsClient(t, "calls", map[string]any{"url": notes, "headers": map[string]string{"Authorization": "Bearer " + token(notes, "vault:read vault:write")}, "steps": []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
		{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Hello.md", "content": "through the gateway"}},
	}}, &got)
	if len(got.Steps) != 2 || got.Steps[1].Result == nil || got.Steps[1].Result.IsError {
		t.Fatalf("the SDK's calls: %+v", got.Steps)
	}
	before, _ := os.ReadFile(hello)
	if !strings.Contains(string(before), "through the gateway") {
		t.Fatalf("the note: %q", before)
	}
	write := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_append_to_note","arguments":{"path":"Hello.md","content":"must not appear"}}}`
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, c := range []struct {
		name, url, token, body string
		status                 int
		want                   string
	}{
		{"the vault namespace's token on the command namespace", stdio, token(notes, "vault:read vault:write"), write, 401, "another resource"},
		{"vault:read on the vault namespace, writing", notes, token(notes, "vault:read"), write, 403, `"INSUFFICIENT_SCOPE"`},
		{"vault:read on the command namespace, listing", stdio, token(stdio, "vault:read"), list, 200, `"name":"obsidian_read_note"`},
		{"vault:read on the command namespace, calling (the scope challenge)", stdio, token(stdio, "vault:read"), write, 403, `"INSUFFICIENT_SCOPE"`},
	} {
		if status, body := postBearer(t, c.url, c.token, c.body); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %.400s", c.name, status, body)
		}
	}
	if after, _ := os.ReadFile(hello); string(after) != string(before) {
		t.Errorf("a refused request wrote: %q", after)
	}
	// The dashboard's data: a token the issuer minted for it.
	dash := g.match[2] + "/debug"
	for _, c := range []struct {
		name, token string
		status      int
	}{{"no token", "", 401}, {"a namespace's token", token(notes, "vault:read"), 401}, {"its own", token(dash, "vault:read"), 200}} {
		req, _ := http.NewRequest(http.MethodGet, dash+"/state", nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("the dashboard's state, %s: %d", c.name, resp.StatusCode)
		}
	}
	if t.Failed() {
		t.Logf("gateway stderr:\n%s", g.stderr)
	}
}

// TestOAuthOpaqueTokens: with --oauth-client-id, serve checks an opaque
// token by asking the real authorization server (introspection, RFC 7662)
// on every request: a good one reads; one for another resource is
// refused; and once the issuer revokes a token (RFC 7009), the very next
// request with it is refused.
func TestOAuthOpaqueTokens(t *testing.T) {
	outside(t)
	t.Parallel()
	issuer, token := startIssuer(t, "opaque", false)
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Hello.md"), []byte("# Hello\nopaque\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth-issuer", issuer, "--oauth-client-id", rsClient}, "OBSIDIAN_MCP_OAUTH_CLIENT_SECRET="+rsSecret)
	defer s.stop(t)
	read := func(tok string) (int, string) {
		return postBearer(t, s.url, tok, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Hello.md"}}}`)
	}
	good := token(s.url, "vault:read")
	if strings.Count(good, ".") == 2 {
		t.Fatalf("the issuer gave a JWT, not an opaque token: %.20s…", good)
	}
	if status, body := read(good); status != 200 || !strings.Contains(body, "opaque") {
		t.Fatalf("an opaque token: %d %s", status, body)
	}
	if status, body := read(token("http://127.0.0.1:1/mcp", "vault:read")); status != 401 || !strings.Contains(body, "another resource") {
		t.Errorf("another resource's opaque token: %d %s", status, body)
	}
	// Revoked at the issuer, by the client it was issued to.
	resp, err := http.PostForm(issuer+"/token/revocation", url.Values{"token": {good}, "client_id": {"tests"}, "client_secret": {"tests-secret-0123456789abcdef"}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revocation: %v %v", err, resp)
	}
	resp.Body.Close()
	if status, body := read(good); status != 401 || !strings.Contains(body, "not active") {
		t.Errorf("a revoked token: %d %s", status, body)
	}
	if strings.Contains(s.stderr.String(), good) || strings.Contains(s.stderr.String(), rsSecret) {
		t.Error("a token or the client secret is in the log")
	}
}

// postBearer posts body to url with token as its bearer, and returns the
// status and the WWW-Authenticate challenge followed by the body.
func postBearer(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate") + " " + string(b)
}
