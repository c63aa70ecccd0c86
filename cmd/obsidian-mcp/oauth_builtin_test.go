package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBuiltInOAuth: serve --oauth, as a person reaches it from an app
// with OAuth. The owner sets the passphrase with `obsidian-mcp oauth
// passphrase`; the TypeScript SDK's OAuth client discovers the server,
// registers itself, and sends the person to the consent page, which
// headless Chromium fills in and approves as a person would click; the
// SDK exchanges the code (PKCE), lists the tools, reads and writes a note,
// and refreshes its tokens. `obsidian-mcp oauth grants` lists the
// approval, and once `obsidian-mcp oauth revoke` ends it, the SDK's token
// is refused at the next request.
func TestBuiltInOAuth(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	store, oauthCmd := oauthStore(t)
	vault, hello := helloVault(t, "# Hello\n")
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth", "--oauth-store", store})
	defer s.stop(t)

	got := sdkSignIn(t, browser, s, s.url, []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
		{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Hello.md", "content": "approved in a browser"}},
	})
	if !strings.Contains(got.Scope, "vault:write") || !slices.Contains(got.Tools, "obsidian_append_to_note") || len(got.Steps) != 2 ||
		got.Steps[0].Result == nil || got.Steps[1].Result == nil || got.Steps[1].Result.IsError || !got.Refreshed {
		t.Fatalf("the SDK after signing in: %+v", got)
	}
	if data, _ := os.ReadFile(hello); !strings.Contains(string(data), "approved in a browser") {
		t.Errorf("the note: %q", data)
	}
	// The owner lists the approval and revokes it.
	listed := oauthCmd("", "grants")
	if !strings.Contains(listed, "TypeScript SDK test client") || !strings.Contains(listed, "vault:read vault:write") {
		t.Fatalf("grants:\n%s", listed)
	}
	id := strings.Fields(strings.Split(listed, "\n")[1])[0]
	call := func() (int, string) {
		return postBearer(t, s.url, got.AccessToken, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	}
	if status, body := call(); status != 200 {
		t.Fatalf("the SDK's last token before the revocation: %d %s", status, body)
	}
	revoked := oauthCmd("", "revoke", id)
	if !strings.Contains(revoked, "Revoked") {
		t.Fatalf("revoke: %s", revoked)
	}
	if status, body := call(); status != 401 || !strings.Contains(body, "revoked") {
		t.Errorf("the SDK's token after the revocation: %d %s", status, body)
	}
	if listed := oauthCmd("", "grants"); !strings.Contains(listed, "No client is approved") {
		t.Errorf("grants after the revocation:\n%s", listed)
	}
	if strings.Contains(s.stderr.String(), testPassphrase) {
		t.Error("the passphrase is in serve's log")
	}
	if t.Failed() {
		t.Logf("serve:\n%s", s.stderr)
	}
}

// TestGatewayBuiltInOAuth: a gateway with oauth.built_in is its own
// authorization server for every namespace: the TypeScript SDK signs in
// to one (consent in Chromium, which names that namespace), reads and
// writes there, and its token is refused by the other; the conformance
// suite's authorization-server scenarios pass against it.
func TestGatewayBuiltInOAuth(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	store, _ := oauthStore(t)
	vault, hello := helloVault(t, "# Hello\n")
	g := gateway(t, fmt.Sprintf("oauth:\n  built_in: true\n  store: %q\nnamespaces:\n  notes:\n    vault_path: %q\n  work:\n    vault_path: %q\n", store, vault, t.TempDir()))
	defer g.stop(t)
	notes, work := g.url+"/mcp/notes", g.url+"/mcp/work"
	got := sdkSignIn(t, browser, g, notes, []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
		{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Hello.md", "content": "through the gateway's own sign-in"}},
	})
	if len(got.Steps) != 2 || got.Steps[1].Result == nil || got.Steps[1].Result.IsError || !got.Refreshed {
		t.Fatalf("the SDK after signing in: %+v", got)
	}
	before, _ := os.ReadFile(hello)
	if !strings.Contains(string(before), "through the gateway's own sign-in") {
		t.Fatalf("the note: %q", before)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if status, body := postBearer(t, work, got.AccessToken, list); status != 401 || !strings.Contains(body, "another resource") {
		t.Errorf("the notes token on work: %d %.300s", status, body)
	}
	if status, body := postBearer(t, notes, got.AccessToken, list); status != 200 {
		t.Errorf("the notes token on notes: %d %.300s", status, body)
	}
	conformAuthorization(t, browser, g, g.url, notes)
	if strings.Contains(g.stderr.String(), testPassphrase) || strings.Contains(g.stderr.String(), got.AccessToken) {
		t.Error("the passphrase or a token is in the gateway's log")
	}
	if t.Failed() {
		t.Logf("gateway:\n%s", g.stderr)
	}
}

// testPassphrase approves clients in the OAuth tests.
const testPassphrase = "correct horse battery"

// oauthStore is a new store for the built-in server with testPassphrase
// set by `obsidian-mcp oauth passphrase`, and a way to run `obsidian-mcp
// oauth` on it (stdin, then its arguments).
func oauthStore(t *testing.T) (string, func(stdin string, args ...string) string) {
	t.Helper()
	store := filepath.Join(t.TempDir(), "oauth.json")
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, append([]string{"oauth"}, append(args, "--oauth-store", store)...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("oauth %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run(testPassphrase+"\n", "passphrase")
	return store, run
}

// signedIn is what oauth-client.mjs reports once signed in.
type signedIn struct {
	Scope       string
	Tools       []string
	Steps       []outcome
	Refreshed   bool
	AccessToken string
}

// sdkSignIn runs the TypeScript SDK's OAuth client against the MCP
// endpoint url (served by s, the built-in authorization server's): it
// discovers, registers and sends the person to the consent page, which
// Chromium approves with testPassphrase; then it runs steps and refreshes
// its tokens.
func sdkSignIn(t *testing.T, browser string, s *served, url string, steps []step) signedIn {
	t.Helper()
	issuer := url[:strings.Index(url, "/mcp")]
	return sdkSignInAt(t, s, url, issuer, steps, func(authorize string) {
		page, landed := approveInBrowser(t, browser, authorize, testPassphrase, s)
		if !strings.Contains(page, "TypeScript SDK test client") || !strings.Contains(page, "/callback") || !strings.Contains(page, url) || landed != "signed in" {
			t.Errorf("the consent page said %q; the app's callback %q", page, landed)
		}
	})
}

// sdkSignInAt is sdkSignIn with the authorization server at issuer,
// whose pages approve plays as the person.
func sdkSignInAt(t *testing.T, s *served, url, issuer string, steps []step, approve func(authorize string)) signedIn {
	t.Helper()
	plan, _ := json.Marshal(map[string]any{"url": url, "steps": steps})
	cmd := exec.CommandContext(t.Context(), node(t), "oauth-client.mjs")
	cmd.Dir = clientsDir
	cmd.Stdin = bytes.NewReader(plan)
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("oauth-client.mjs ended: %v\n%s\nserver:\n%s", cmd.Wait(), stderr.String(), s.stderr)
			}
			return l
		case <-time.After(60 * time.Second):
			t.Fatalf("oauth-client.mjs said nothing within 60 s\n%s", stderr.String())
			return ""
		}
	}
	var asked struct{ Authorize string }
	if err := json.Unmarshal([]byte(next()), &asked); err != nil || !strings.HasPrefix(asked.Authorize, issuer+"/") {
		t.Fatalf("the client asked for %+v (%v)", asked, err)
	}
	approve(asked.Authorize) // the person
	var got signedIn
	if err := json.Unmarshal([]byte(next()), &got); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("oauth-client.mjs: %v\n%s", err, stderr.String())
	}
	return got
}

// approveInBrowser opens authorize in headless Chromium, as the person
// would: reads the consent page, types the passphrase, clicks Approve,
// and follows the redirects to the app's callback. It returns the page's
// text and the callback's. Where the page offers changing notes (the box
// starts unticked), the owner ticks it.
func approveInBrowser(t *testing.T, browser, authorize, passphrase string, s *served) (page, landed string) {
	t.Helper()
	ctx := browse(t, browser)
	var ticked bool
	err := chromedp.Run(ctx,
		chromedp.Navigate(authorize),
		chromedp.WaitVisible(`#passphrase`, chromedp.ByID),
		chromedp.Text(`body`, &page, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const w = document.getElementById("write"); if (!w || w.checked) return false; w.click(); return w.checked; })()`, &ticked),
		chromedp.SendKeys(`#passphrase`, passphrase, chromedp.ByID),
		chromedp.Click(`#approve`, chromedp.ByID),
	)
	if err != nil {
		t.Fatalf("the consent page in Chromium: %v\npage: %s", err, page)
	}
	return page, landOnCallback(t, ctx, s)
}

// landOnCallback waits for the browser, sent through the authorization
// server's redirects by a click, to reach the app's callback, and returns
// the callback page's text. Each step is a navigation, so the page is
// asked where it is until it is there (30 s at most).
func landOnCallback(t *testing.T, ctx context.Context, s *served) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		var where, landed string
		if err := chromedp.Run(ctx, chromedp.Location(&where)); err == nil && strings.Contains(where, "/callback?") {
			if err := chromedp.Run(ctx, chromedp.Text(`body`, &landed, chromedp.ByQuery)); err == nil {
				return landed
			}
		}
		if time.Now().After(deadline) {
			var body string
			_ = chromedp.Run(ctx, chromedp.Text(`body`, &body, chromedp.ByQuery))
			t.Fatalf("the browser never reached the app's callback (at %q, showing %q)\nserver:\n%s", where, body, s.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConformanceAuthorizationServer: the conformance suite's
// authorization-server scenarios (conformance-draft, 0.2.0-alpha.12:
// authorization-server-metadata-endpoint, whose second check is the
// client ID metadata document support, and authorization-code-grant:
// three checks in all) against serve --oauth; the code grant's consent is
// approved in headless Chromium, as the suite asks a person to.
func TestConformanceAuthorizationServer(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	store, _ := oauthStore(t)
	vault := t.TempDir()
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth", "--oauth-store", store})
	defer s.stop(t)
	conformAuthorization(t, browser, s, strings.TrimSuffix(s.url, "/mcp"), s.url)
}

// conformAuthorization runs the conformance suite's authorization-server
// scenarios against issuer, for the MCP endpoint resource (served by s),
// approving the code grant's consent in Chromium.
func conformAuthorization(t *testing.T, browser string, s *served, issuer, resource string) {
	t.Helper()
	port := freePort(t) // for the suite's callback
	resp, err := http.Post(issuer+"/oauth/register", "application/json", strings.NewReader(fmt.Sprintf(`{"client_name":"conformance suite","redirect_uris":["http://127.0.0.1:%d/callback"]}`, port)))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if reg.ClientID == "" {
		t.Fatalf("registration: %d", resp.StatusCode)
	}
	suite := filepath.Join("node_modules", "conformance-draft", "dist", "index.js")
	results := t.TempDir()
	cmd := exec.CommandContext(t.Context(), node(t), suite, "authorization", "-o", results, "--url", issuer, "--client-id", reg.ClientID, "--resource", resource, "-p", fmt.Sprint(port))
	cmd.Dir = clientsDir
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		said.WriteString(line + "\n")
		if strings.HasPrefix(line, issuer+"/authorize?") {
			if _, landed := approveInBrowser(t, browser, line, testPassphrase, s); !strings.Contains(landed, "OK") {
				t.Errorf("the suite's callback said %q", landed)
			}
		}
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(said.String(), "Total: 3 passed, 0 failed") {
		var detail strings.Builder
		_ = filepath.WalkDir(results, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&detail, "%s:\n%s\n", p, data)
			}
			return nil
		})
		t.Errorf("the suite: %v\n%s\n%s", err, said.String(), detail.String())
	}
}
