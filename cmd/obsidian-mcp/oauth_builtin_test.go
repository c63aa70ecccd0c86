package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
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
	browser := findBrowser(t)
	store := filepath.Join(t.TempDir(), "oauth.json")
	oauthCmd := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, append([]string{"oauth"}, append(args, "--oauth-store", store)...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("oauth %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	const passphrase = "correct horse battery"
	oauthCmd(passphrase+"\n", "passphrase")
	vault, hello := helloVault(t, "# Hello\n")
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth", "--oauth-store", store})
	defer s.stop(t)

	plan, _ := json.Marshal(map[string]any{"url": s.url, "steps": []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
		{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Hello.md", "content": "approved in a browser"}},
	}})
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
				t.Fatalf("oauth-client.mjs ended: %v\n%s\nserve:\n%s", cmd.Wait(), stderr.String(), s.stderr)
			}
			return l
		case <-time.After(60 * time.Second):
			t.Fatalf("oauth-client.mjs said nothing within 60 s\n%s", stderr.String())
			return ""
		}
	}
	var asked struct{ Authorize string }
	if err := json.Unmarshal([]byte(next()), &asked); err != nil || !strings.HasPrefix(asked.Authorize, strings.TrimSuffix(s.url, "/mcp")+"/authorize?") {
		t.Fatalf("the client asked for %+v (%v)", asked, err)
	}
	// The person: reads the page, types the passphrase, approves.
	page, landed := approveInBrowser(t, browser, asked.Authorize, passphrase, s)
	if !strings.Contains(page, "TypeScript SDK test client") || !strings.Contains(page, "/callback") || landed != "signed in" {
		t.Errorf("the consent page said %q; the app's callback %q", page, landed)
	}
	var got struct {
		Scope       string
		Tools       []string
		Steps       []outcome
		Refreshed   bool
		AccessToken string
	}
	if err := json.Unmarshal([]byte(next()), &got); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("oauth-client.mjs: %v\n%s", err, stderr.String())
	}
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
	if strings.Contains(s.stderr.String(), passphrase) {
		t.Error("the passphrase is in serve's log")
	}
	if t.Failed() {
		t.Logf("serve:\n%s\nclient:\n%s", s.stderr, stderr.String())
	}
}

// approveInBrowser opens authorize in headless Chromium, as the person
// would: reads the consent page, types the passphrase, clicks Approve,
// and follows the redirects to the app's callback. It returns the page's
// text and the callback's.
func approveInBrowser(t *testing.T, browser, authorize, passphrase string, s *served) (page, landed string) {
	t.Helper()
	ctx := browse(t, browser)
	err := chromedp.Run(ctx,
		chromedp.Navigate(authorize),
		chromedp.WaitVisible(`#passphrase`, chromedp.ByID),
		chromedp.Text(`body`, &page, chromedp.ByQuery),
		chromedp.SendKeys(`#passphrase`, passphrase, chromedp.ByID),
		chromedp.Click(`#approve`, chromedp.ByID),
	)
	if err != nil {
		t.Fatalf("the consent page in Chromium: %v\npage: %s", err, page)
	}
	// The click sends the browser through the server's redirects to the
	// app's callback; each step is a navigation, so the page is asked
	// where it is until it is there.
	for deadline := time.Now().Add(30 * time.Second); ; {
		var where string
		if err := chromedp.Run(ctx, chromedp.Location(&where)); err == nil && strings.Contains(where, "/callback?") {
			if err := chromedp.Run(ctx, chromedp.Text(`body`, &landed, chromedp.ByQuery)); err == nil {
				return page, landed
			}
		}
		if time.Now().After(deadline) {
			var body string
			_ = chromedp.Run(ctx, chromedp.Text(`body`, &body, chromedp.ByQuery))
			t.Fatalf("the browser never reached the app's callback (at %q, showing %q)\nserve:\n%s", where, body, s.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConformanceAuthorizationServer: the conformance suite's
// authorization-server scenarios (conformance-draft, 0.2.0-alpha.12:
// authorization-server-metadata-endpoint, authorization-code-grant)
// against serve --oauth; the code grant's consent is approved in headless
// Chromium, as the suite asks a person to.
func TestConformanceAuthorizationServer(t *testing.T) {
	browser := findBrowser(t)
	store := filepath.Join(t.TempDir(), "oauth.json")
	set := exec.Command(binary, "oauth", "passphrase", "--oauth-store", store)
	set.Stdin = strings.NewReader("correct horse battery\n")
	if out, err := set.CombinedOutput(); err != nil {
		t.Fatalf("passphrase: %v\n%s", err, out)
	}
	vault := t.TempDir()
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth", "--oauth-store", store})
	defer s.stop(t)
	issuer := strings.TrimSuffix(s.url, "/mcp")
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the suite's callback
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
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
	cmd := exec.CommandContext(t.Context(), node(t), suite, "authorization", "-o", results, "--url", issuer, "--client-id", reg.ClientID, "--resource", s.url, "-p", fmt.Sprint(port))
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
			if _, landed := approveInBrowser(t, browser, line, "correct horse battery", s); !strings.Contains(landed, "OK") {
				t.Errorf("the suite's callback said %q", landed)
			}
		}
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(said.String(), "Total: 2 passed, 0 failed") {
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
