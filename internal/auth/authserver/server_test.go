package authserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/oauth2"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

// The whole flow with golang.org/x/oauth2 as the client (an independent
// implementation of the client side: PKCE S256, code exchange, refresh),
// against the server on a real loopback listener; the consent page is
// posted as its form would be. cmd/obsidian-mcp drives the same with the
// TypeScript SDK and Chromium.

const passphrase = "correct horse battery"

type fixture struct {
	srv      *Server
	url      string
	resource string
	store    string
	http     *http.Client // follows no redirect
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	file := filepath.Join(t.TempDir(), "oauth.json")
	return startAt(t, file, true)
}

// startAt serves the store in file (a restart when it exists already).
func startAt(t *testing.T, file string, setPassphrase bool, paths ...string) *fixture {
	t.Helper()
	return startAtWith(t, file, setPassphrase, Options{}, paths...)
}

// startAtWith is startAt with options (its store, issuer and resources
// are set here).
func startAtWith(t *testing.T, file string, setPassphrase bool, o Options, paths ...string) *fixture {
	t.Helper()
	if len(paths) == 0 {
		paths = []string{"/mcp"}
	}
	store, err := OpenStore(file)
	if err != nil {
		t.Fatal(err)
	}
	store.cost = bcrypt.MinCost
	if setPassphrase {
		if err := store.SetPassphrase(passphrase); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewUnstartedServer(nil)
	issuer := "http://" + ts.Listener.Addr().String()
	var resources []string
	for _, p := range paths {
		resources = append(resources, issuer+p)
	}
	o.Store, o.Issuer, o.Resources = store, issuer, resources
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return &fixture{srv: srv, url: issuer, resource: resources[0], store: file,
		http: &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

const callback = "http://127.0.0.1:9999/callback"

// register registers a client and returns its oauth2 configuration.
func (f *fixture) register(t *testing.T, redirect string) *oauth2.Config {
	t.Helper()
	resp, err := http.Post(f.url+registerPath, "application/json", strings.NewReader(`{"client_name":"Test app","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg registration
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || resp.StatusCode != 201 || reg.ClientID == "" {
		t.Fatalf("registration: %d %+v %v", resp.StatusCode, reg, err)
	}
	return &oauth2.Config{ClientID: reg.ClientID, RedirectURL: redirect, Scopes: []string{oauth.ScopeRead, oauth.ScopeWrite},
		Endpoint: oauth2.Endpoint{AuthURL: f.url + "/authorize", TokenURL: f.url + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
}

var hidden = regexp.MustCompile(`name="(id|csrf)" value="([^"]+)"`)

// authorize goes from the authorization URL to the consent page and
// returns the page's form values.
func (f *fixture) authorize(t *testing.T, authURL string) url.Values {
	t.Helper()
	resp, err := f.http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.Contains(loc, consentPath) {
		t.Fatalf("authorize: %d to %q", resp.StatusCode, loc)
	}
	page, err := f.http.Get(f.url + loc)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, page.Body)
	form := url.Values{}
	for _, m := range hidden.FindAllStringSubmatch(b.String(), -1) {
		form.Set(m[1], m[2])
	}
	if form.Get("id") == "" || form.Get("csrf") == "" {
		t.Fatalf("consent page: %s", b.String())
	}
	return form
}

// consent posts the form and, when approved, follows the server's
// redirects to the client's callback, returning its query.
func (f *fixture) consent(t *testing.T, form url.Values) (*http.Response, url.Values) {
	t.Helper()
	resp, err := f.http.PostForm(f.url+consentPath, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for resp.StatusCode/100 == 3 {
		loc := resp.Header.Get("Location")
		if strings.HasPrefix(loc, callback) || strings.HasPrefix(loc, "http://localhost") {
			u, _ := url.Parse(loc)
			return resp, u.Query()
		}
		if strings.HasPrefix(loc, "/") {
			loc = f.url + loc
		}
		if resp, err = f.http.Get(loc); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	return resp, nil
}

// signIn runs the whole flow and returns the tokens.
func (f *fixture) signIn(t *testing.T, cfg *oauth2.Config, write bool) *oauth2.Token {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	form := f.authorize(t, cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", f.resource)))
	form.Set("passphrase", passphrase)
	form.Set("decision", "approve")
	if write {
		form.Set("write", "on")
	}
	_, q := f.consent(t, form)
	if q.Get("code") == "" || q.Get("state") != "st4te" {
		t.Fatalf("callback query %v", q)
	}
	tok, err := cfg.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return tok
}

// TestTokenResponseNotCached: a response carrying tokens says no-store
// (RFC 6749 §5.1); an authorization request with no scope gets the
// default (both vault scopes, for the owner to narrow).
func TestTokenResponseNotCached(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, err := http.PostForm(f.url+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "client_id": {"nobody"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("token endpoint Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	cfg := f.register(t, callback)
	cfg.Scopes = nil
	form := f.authorize(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	if form.Get("id") == "" {
		t.Error("no consent page without a scope")
	}
}

// TestFlow: register, authorize with PKCE, consent with the passphrase,
// exchange the code: a JWT for this resource with the scopes approved,
// accepted by the resource server's check; a code used twice is refused;
// refresh tokens rotate, and a replaced one presented again revokes the
// grant, whose access tokens are then refused at once.
func TestFlow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.register(t, callback)
	tok := f.signIn(t, cfg, true)
	check := f.srv.Checker(f.resource)
	ctx := context.Background()
	a, err := check.Check(ctx, tok.AccessToken)
	if err != nil || !a.CanWrite() || a.Subject != subject || a.ClientID != cfg.ClientID {
		t.Fatalf("the access token: %+v %v", a, err)
	}
	if tok.RefreshToken == "" {
		t.Fatal("no refresh token")
	}
	// Refresh: a new pair; the old refresh token is spent.
	src := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken})
	fresh, err := src.Token()
	if err != nil || fresh.RefreshToken == tok.RefreshToken || fresh.AccessToken == "" {
		t.Fatalf("refresh: %+v %v", fresh, err)
	}
	if _, err := check.Check(ctx, fresh.AccessToken); err != nil {
		t.Errorf("the refreshed token: %v", err)
	}
	// The spent token again: refused, and the grant is revoked.
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
		t.Fatal("a spent refresh token was accepted")
	}
	for i, tk := range []string{tok.AccessToken, fresh.AccessToken} {
		if _, err := check.Check(ctx, tk); err == nil || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("access token %d after the reuse: %v", i, err)
		}
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token(); err == nil {
		t.Error("the newest refresh token of a revoked grant was accepted")
	}
}

// TestRefusals: each way to get a token without the owner's consent, or
// to use one beyond it, is refused.
func TestRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.register(t, callback)
	ctx := context.Background()

	// A code used twice.
	verifier := oauth2.GenerateVerifier()
	form := f.authorize(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
	form.Set("passphrase", passphrase)
	form.Set("decision", "approve")
	_, q := f.consent(t, form)
	if _, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier)); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier)); err == nil {
		t.Error("a code was exchanged twice")
	}
	// The wrong verifier (PKCE).
	verifier = oauth2.GenerateVerifier()
	form = f.authorize(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
	form.Set("passphrase", passphrase)
	form.Set("decision", "approve")
	_, q = f.consent(t, form)
	if _, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier())); err == nil {
		t.Error("a code was exchanged with the wrong verifier")
	}
	// Authorization requests that never reach the consent page.
	for name, u := range map[string]string{
		"no PKCE":                cfg.AuthCodeURL("s"),
		"plain PKCE":             cfg.AuthCodeURL("s", oauth2.SetAuthURLParam("code_challenge", "abc"), oauth2.SetAuthURLParam("code_challenge_method", "plain")),
		"another redirect":       strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(callback), url.QueryEscape("https://evil.example/cb"), 1),
		"another resource":       cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", "https://other.example/mcp")),
		"an unregistered client": strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), "client_id="+cfg.ClientID, "client_id=nobody", 1),
	} {
		resp, err := f.http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); strings.Contains(loc, consentPath) || strings.HasPrefix(loc, "https://evil.example") {
			t.Errorf("%s: %d to %q", name, resp.StatusCode, loc)
		}
	}
	// The consent page: not framable; a wrong CSRF token or another
	// site's post refused; deny sends access_denied back.
	form = f.authorize(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
	page, _ := f.http.Get(f.url + consentPath + "?id=" + form.Get("id"))
	page.Body.Close()
	if page.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(page.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("consent headers %v", page.Header)
	}
	bad := url.Values{"id": {form.Get("id")}, "csrf": {"forged"}, "passphrase": {passphrase}, "decision": {"approve"}}
	if resp, _ := f.consent(t, bad); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a forged CSRF token: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, f.url+consentPath, strings.NewReader(url.Values{"id": {form.Get("id")}, "csrf": {form.Get("csrf")}, "passphrase": {passphrase}, "decision": {"approve"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := f.http.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another site's post: %v %v", err, resp)
	}
	form.Set("decision", "deny")
	if _, q := f.consent(t, form); q.Get("error") != "access_denied" {
		t.Errorf("deny: %v", q)
	}
	// A read-only approval gives a read-only token.
	ro := f.signIn(t, cfg, false)
	if a, err := f.srv.Checker(f.resource).Check(ctx, ro.AccessToken); err != nil || a.CanWrite() || !a.CanRead() {
		t.Errorf("read-only approval: %+v %v", a, err)
	}
	// Registration refuses what it cannot serve safely.
	for name, body := range map[string]string{
		"http elsewhere":  `{"redirect_uris":["http://evil.example/cb"]}`,
		"a fragment":      `{"redirect_uris":["https://app.example/cb#x"]}`,
		"javascript":      `{"redirect_uris":["javascript:alert(1)"]}`,
		"ftp":             `{"redirect_uris":["ftp://evil.example/cb"]}`,
		"blob":            `{"redirect_uris":["blob:https://evil.example/0b6c"]}`,
		"about":           `{"redirect_uris":["about:blank"]}`,
		"data":            `{"redirect_uris":["data:text/html,hi"]}`,
		"a secret":        `{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`,
		"implicit grant":  `{"redirect_uris":["https://app.example/cb"],"grant_types":["implicit"]}`,
		"no redirect URI": `{}`,
	} {
		resp, err := http.Post(f.url+registerPath, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("registration with %s: %d", name, resp.StatusCode)
		}
	}
}

// TestOwnerNotLockedOut: a stranger's seven wrong passphrases do not keep
// the owner out: their right one, next, is taken at once. (A wait that
// grew with each wrong guess once answered it 403 and 429 for minutes.)
func TestOwnerNotLockedOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.register(t, callback)
	form := f.authorize(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	form.Set("decision", "approve")
	try := func(p string) int {
		form.Set("passphrase", p)
		resp, _ := f.consent(t, form)
		return resp.StatusCode
	}
	for i := range 7 {
		if got := try("guess"); got != http.StatusUnauthorized {
			t.Fatalf("wrong passphrase %d: %d", i, got)
		}
	}
	if got := try(passphrase); got != http.StatusFound { // the provider's redirect to the app, with the code
		t.Errorf("the right passphrase after seven wrong ones: %d", got)
	}
}

// TestPassphraseGuessesAtOnce: passphrases sent at once are checked one
// at a time (each a bcrypt), so guessing goes no faster with many
// connections; every one is answered.
func TestPassphraseGuessesAtOnce(t *testing.T) {
	t.Parallel()
	l := newLimiter()
	hash, _ := bcrypt.GenerateFromPassword([]byte("right"), bcrypt.MinCost)
	var now, most atomic.Int32
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l.check(func() bool {
				c := now.Add(1)
				for m := most.Load(); c > m && !most.CompareAndSwap(m, c); m = most.Load() {
				}
				_ = bcrypt.CompareHashAndPassword(hash, []byte{byte(i)})
				now.Add(-1)
				return false
			})
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d checks ran at once, want 1", most.Load())
	}
	if _, fails := l.check(func() bool { return false }); fails != n+1 {
		t.Errorf("%d wrong in a row counted, want %d", fails, n+1)
	}
}

// TestPendingSignInsBounded: 1,100 sign-ins left waiting by one
// registered client, from one address, and seven wrong passphrases, do
// not keep another client's (the owner's) out: it gets its consent page
// at once and signs in; the flooding client keeps at most its own share
// waiting. (Once, past 1,000
// waiting, every new sign-in failed with "too many sign-ins are
// waiting".)
func TestPendingSignInsBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	flood := f.register(t, "https://flood.example/cb")
	for i := range 1100 {
		resp, err := f.http.Get(flood.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("sign-in %d: %d", i, resp.StatusCode)
		}
	}
	if n := f.srv.st.pendingCount(); n > maxPendingPerClient {
		t.Errorf("%d sign-ins of one client waiting, want at most %d", n, maxPendingPerClient)
	}
	// And seven wrong passphrases from the stranger, on a page of its own.
	form := f.authorize(t, flood.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	form.Set("decision", "approve")
	form.Set("passphrase", "guess")
	for range 7 {
		if resp, _ := f.consent(t, form); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a wrong passphrase: %d", resp.StatusCode)
		}
	}
	owner := f.register(t, callback)
	if tok := f.signIn(t, owner, true); tok.AccessToken == "" {
		t.Error("the owner got no token")
	}
}

// TestPendingPerAddress: many clients from one address keep at most
// maxPendingPerAddr waiting, and the newest always gets in.
func TestPendingPerAddress(t *testing.T) {
	t.Parallel()
	st := newStorage(nil, nil)
	ctx := context.WithValue(context.WithValue(context.Background(), resourceKey{}, "r"), addrKey{}, "192.0.2.1")
	var last op.AuthRequest
	for i := range 100 {
		var err error
		last, err = st.CreateAuthRequest(ctx, &oidc.AuthRequest{ClientID: fmt.Sprintf("c%d", i), CodeChallenge: "x", CodeChallengeMethod: oidc.CodeChallengeMethodS256}, "")
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := st.pendingCount(); n != maxPendingPerAddr {
		t.Errorf("%d waiting from one address, want %d", n, maxPendingPerAddr)
	}
	if _, err := st.AuthRequestByID(ctx, last.GetID()); err != nil {
		t.Errorf("the newest was not kept: %v", err)
	}
}

// TestGrantsSurviveRestart: a grant outlives the server; revoking it
// (from another process's Store, as `obsidian-mcp oauth revoke` does)
// refuses its tokens at once.
func TestGrantsSurviveRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.register(t, callback)
	tok := f.signIn(t, cfg, true)
	again := startAt(t, f.store, false)
	cfg.Endpoint = oauth2.Endpoint{AuthURL: again.url + "/authorize", TokenURL: again.url + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}
	fresh, err := cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh after a restart: %v", err)
	}
	other, err := OpenStore(f.store)
	if err != nil {
		t.Fatal(err)
	}
	grants, names, err := other.Grants()
	if err != nil || len(grants) != 1 || names[grants[0].ClientID] != "Test app" {
		t.Fatalf("grants %+v %v %v", grants, names, err)
	}
	if _, err := again.srv.Checker(again.resource).Check(context.Background(), fresh.AccessToken); err == nil {
		t.Error("the restarted server (another port: another issuer and resource) accepted a token naming the first's resource")
	}
	if _, err := other.Revoke(grants[0].ID[:8]); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token(); err == nil {
		t.Error("a revoked grant's refresh token was accepted")
	}
}

// TestSeveralResources: a server for several MCP endpoints (the gateway's
// namespaces) issues each token for the one resource its request named:
// the consent page says which, the token is refused by the others, a
// request naming none or another is refused (invalid_target), and a code
// or refresh token cannot be turned into a token for another resource.
func TestSeveralResources(t *testing.T) {
	t.Parallel()
	f := startAt(t, filepath.Join(t.TempDir(), "oauth.json"), true, "/mcp/notes", "/mcp/work")
	notes, work := f.url+"/mcp/notes", f.url+"/mcp/work"
	cfg := f.register(t, callback)
	ctx := context.Background()
	verifier := oauth2.GenerateVerifier()
	for name, u := range map[string]string{
		"no resource":      cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)),
		"an unknown one":   cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", f.url+"/mcp/other")),
		"two at once":      cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", notes)) + "&resource=" + url.QueryEscape(work),
		"the issuer's own": cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", f.url+"/mcp")),
	} {
		resp, err := f.http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "invalid_target") {
			t.Errorf("%s: %d %s", name, resp.StatusCode, body)
		}
	}
	// A code for notes, asked to be exchanged for work: refused.
	form := f.authorize(t, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", notes)))
	page, err := f.http.Get(f.url + consentPath + "?id=" + form.Get("id"))
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if !strings.Contains(string(shown), notes) {
		t.Errorf("the consent page does not name %s", notes)
	}
	form.Set("passphrase", passphrase)
	form.Set("decision", "approve")
	form.Set("write", "on")
	_, q := f.consent(t, form)
	if _, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", work)); err == nil || !strings.Contains(err.Error(), "invalid_target") {
		t.Errorf("a notes code exchanged for work: %v", err)
	}
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", notes))
	if err != nil {
		t.Fatalf("exchange for notes: %v", err)
	}
	if _, err := f.srv.Checker(notes).Check(ctx, tok.AccessToken); err != nil {
		t.Errorf("notes refused its own token: %v", err)
	}
	if _, err := f.srv.Checker(work).Check(ctx, tok.AccessToken); err == nil {
		t.Error("work accepted a token for notes")
	}
	// A refresh asking for work is refused and spends nothing: the same
	// refresh token then works for notes.
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {cfg.ClientID}, "resource": {work}}
	resp, err := http.PostForm(f.url+"/oauth/token", refresh)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "invalid_target") {
		t.Errorf("refresh for work: %d %s", resp.StatusCode, body)
	}
	refresh.Set("resource", notes)
	if resp, err = http.PostForm(f.url+"/oauth/token", refresh); err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "access_token") {
		t.Errorf("refresh for notes after the refused one: %d %s", resp.StatusCode, body)
	}
}

// TestAuthorizeIsNoOpenRedirector: a registered app's redirect URI is
// where a sign-in goes only when the request is otherwise fit (RFC 9700
// §4.11.1). Anyone may register https://evil.example/cb; a bad request
// naming it (or naming an app this server does not know, or an address
// the app did not register) gets an error page and no redirect. One
// whose only fault is its resource gets a page with a link back to the
// app, carrying the error, which the person follows or not. (A bad
// request was redirected to the registered URI, on the owner's server's
// own link; a wrong resource showed a bare JSON 400.)
func TestAuthorizeIsNoOpenRedirector(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	evil := f.register(t, "https://evil.example/cb")
	pkce := oauth2.S256ChallengeOption(oauth2.GenerateVerifier())
	cases := map[string]struct{ url, page, back string }{
		"an unknown app":          {strings.Replace(evil.AuthCodeURL("s", pkce), evil.ClientID, "nobody", 1), "does not know", ""},
		"an unregistered address": {strings.Replace(evil.AuthCodeURL("s", pkce), url.QueryEscape("https://evil.example/cb"), url.QueryEscape("https://other.example/cb"), 1), "not an address the app", ""},
		"no PKCE":                 {evil.AuthCodeURL("s"), "PKCE", ""},
		"a token response":        {strings.Replace(evil.AuthCodeURL("s", pkce), "response_type=code", "response_type=token", 1), "response_type", ""},
		"a wrong resource":        {evil.AuthCodeURL("s", pkce, oauth2.SetAuthURLParam("resource", "https://elsewhere.example/mcp")), "wrong place", "https://evil.example/cb?error=invalid_target"},
	}
	for name, c := range cases {
		resp, err := f.http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(page, c.page) {
			t.Errorf("%s: %d, Location %q, %s", name, resp.StatusCode, resp.Header.Get("Location"), page)
		}
		if link := strings.Contains(page, `id="back"`); link != (c.back != "") || c.back != "" && !strings.Contains(page, `href="`+c.back) {
			t.Errorf("%s: the link back is wrong: %s", name, page)
		}
	}
}

// TestConsentWriteBox: the box that lets an app change notes starts
// unticked, and a request for reading alone shows none.
func TestConsentWriteBox(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.register(t, callback)
	page := func(scopes ...string) string {
		cfg.Scopes = scopes
		resp, err := f.http.Get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		p, err := f.http.Get(f.url + resp.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Body.Close()
		b, _ := io.ReadAll(p.Body)
		return string(b)
	}
	for name, sc := range map[string][]string{"both": {oauth.ScopeRead, oauth.ScopeWrite}, "none": nil} {
		if p := page(sc...); !strings.Contains(p, `id="write"`) || strings.Contains(p, "checked") {
			t.Errorf("%s: the write box is missing or ticked:\n%s", name, p)
		}
	}
	if p := page(oauth.ScopeRead); strings.Contains(p, `id="write"`) || !strings.Contains(p, "read notes only") {
		t.Errorf("read only: a write box is shown:\n%s", p)
	}
}

// TestReplayedCodeRevokes: a code exchanged twice is refused the second
// time, and the tokens its first exchange issued are revoked (RFC 6749
// §4.1.2).
func TestReplayedCodeRevokes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.register(t, callback)
	verifier := oauth2.GenerateVerifier()
	form := f.authorize(t, cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", f.resource)))
	form.Set("passphrase", passphrase)
	form.Set("decision", "approve")
	_, q := f.consent(t, form)
	ctx := context.Background()
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.Checker(f.resource).Check(ctx, tok.AccessToken); err != nil {
		t.Fatalf("the first token: %v", err)
	}
	if _, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier)); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("the replayed code: %v", err)
	}
	if _, err := f.srv.Checker(f.resource).Check(ctx, tok.AccessToken); err == nil {
		t.Error("the token the code first gave still works after the replay")
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
		t.Error("the refresh token the code first gave still works after the replay")
	}
}

// TestPassphraseHashedAtBcryptsDefaultCost: the store the server opens
// hashes at bcrypt's default cost (the other tests lower it for speed).
func TestPassphraseHashedAtBcryptsDefaultCost(t *testing.T) {
	t.Parallel()
	s, err := OpenStore(filepath.Join(t.TempDir(), "auth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPassphrase(passphrase); err != nil {
		t.Fatal(err)
	}
	var h string
	_ = s.read(func(st *state) { h = st.Passphrase })
	if cost, err := bcrypt.Cost([]byte(h)); err != nil || cost != bcrypt.DefaultCost {
		t.Errorf("cost %d (%v), want bcrypt's default %d", cost, err, bcrypt.DefaultCost)
	}
}
