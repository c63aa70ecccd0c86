package main

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestOAuthExternalSignIn: the TypeScript SDK's OAuth client signs in to
// serve --oauth-issuer as an app does, through the real authorization
// server: it finds the issuer from the Protected Resource Metadata,
// registers itself there (RFC 7591), sends the person to the issuer's
// sign-in and consent pages (PKCE, resource), which headless Chromium
// fills in, exchanges the code for a JWT for this server, reads and
// writes a note, and refreshes its tokens. The refreshed token works too.
func TestOAuthExternalSignIn(t *testing.T) {
	outside(t)
	t.Parallel()
	browser := findBrowser(t)
	issuer, _ := startIssuer(t, "jwt", true)
	vault, hello := helloVault(t, "# Hello\n")
	s := serve(t, []string{"--backend", "native", "--vault-path", vault, "--oauth-issuer", issuer})
	defer s.stop(t)
	got := sdkSignInAt(t, s, s.url, issuer, []step{
		{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "Hello.md"}},
		{Tool: "obsidian_append_to_note", Arguments: map[string]any{"path": "Hello.md", "content": "signed in at the issuer"}},
	}, func(authorize string) { signInAtIssuer(t, browser, authorize, s) })
	if len(got.Steps) != 2 || got.Steps[1].Result == nil || got.Steps[1].Result.IsError || !got.Refreshed {
		t.Fatalf("the SDK after signing in: %+v", got)
	}
	if !strings.Contains(got.Scope, "vault:write") {
		t.Errorf("scope %q", got.Scope)
	}
	if data, err := os.ReadFile(hello); err != nil || !strings.Contains(string(data), "signed in at the issuer") {
		t.Errorf("the note: %q %v", data, err)
	}
	if status, body := postBearer(t, s.url, got.AccessToken, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != 200 {
		t.Errorf("the refreshed token: %d %.300s", status, body)
	}
}

// signInAtIssuer plays the person at node-oidc-provider's own pages: a
// sign-in form (any login and password), then the consent page's
// Continue; the browser then lands on the app's callback.
func signInAtIssuer(t *testing.T, browser, authorize string, s *served) {
	t.Helper()
	ctx := browse(t, browser)
	var page string
	err := chromedp.Run(ctx,
		chromedp.Navigate(authorize),
		chromedp.WaitVisible(`input[name="login"]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name="login"]`, "owner", chromedp.ByQuery),
		chromedp.SendKeys(`input[name="password"]`, "any", chromedp.ByQuery),
		chromedp.Submit(`input[name="login"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`input[name="prompt"][value="consent"] ~ button`, chromedp.ByQuery),
		chromedp.Text(`body`, &page, chromedp.ByQuery),
		chromedp.Click(`input[name="prompt"][value="consent"] ~ button`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the issuer's pages in Chromium: %v\npage: %s", err, page)
	}
	landOnCallback(t, ctx, s)
}
