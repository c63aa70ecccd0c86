package authserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

// documentSite serves client ID metadata documents over HTTPS on
// loopback: path → body (with {url} replaced by the document's own URL),
// counting the fetches.
type documentSite struct {
	srv     *httptest.Server
	fetches atomic.Int32
}

func newDocumentSite(t *testing.T, docs map[string]string) *documentSite {
	t.Helper()
	d := &documentSite{}
	d.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.fetches.Add(1)
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/app.json", http.StatusFound)
			return
		}
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, strings.ReplaceAll(body, "{url}", d.srv.URL+r.URL.Path))
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *documentSite) url(path string) string { return d.srv.URL + path }

// TestMetadataDocumentClient: a client named by the https URL of its
// metadata document signs in with no registration: the server fetches
// the document once (then keeps it), the consent page names the site it
// came from, and the code, token and refresh work as for a registered
// client. A document that does not vouch for the request is refused
// before any consent page: another client_id inside, a redirect URI it
// does not list, a secret asked for, too large, not JSON, a redirect, an
// http URL.
func TestMetadataDocumentClient(t *testing.T) {
	t.Parallel()
	site := newDocumentSite(t, map[string]string{
		"/app.json":      `{"client_id":"{url}","client_name":"Doc App","redirect_uris":["` + callback + `"],"token_endpoint_auth_method":"none"}`,
		"/other.json":    `{"client_id":"https://elsewhere.example/app.json","redirect_uris":["` + callback + `"]}`,
		"/secret.json":   `{"client_id":"{url}","redirect_uris":["` + callback + `"],"token_endpoint_auth_method":"client_secret_basic"}`,
		"/big.json":      `{"client_id":"{url}","redirect_uris":["` + callback + `"],"client_name":"` + strings.Repeat("x", 6<<10) + `"}`,
		"/text.json":     `hello`,
		"/evilredo.json": `{"client_id":"{url}","redirect_uris":["javascript:alert(1)"]}`,
	})
	f := startWith(t, Options{Documents: site.srv.Client()})
	id := site.url("/app.json")
	cfg := &oauth2.Config{ClientID: id, RedirectURL: callback, Scopes: []string{oauth.ScopeRead, oauth.ScopeWrite},
		Endpoint: oauth2.Endpoint{AuthURL: f.url + "/authorize", TokenURL: f.url + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}

	verifier := oauth2.GenerateVerifier()
	form := f.authorize(t, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", f.resource)))
	page, err := f.http.Get(f.url + consentPath + "?id=" + form.Get("id"))
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := io.ReadAll(page.Body)
	page.Body.Close()
	host := strings.TrimPrefix(site.srv.URL, "https://")
	if !strings.Contains(string(shown), "Doc App") || !strings.Contains(string(shown), "<code>"+host+"</code>") {
		t.Errorf("the consent page does not name the app and its site:\n%s", shown)
	}
	form.Set("passphrase", passphrase)
	form.Set("decision", "approve")
	_, q := f.consent(t, form)
	ctx := context.Background()
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	a, err := f.srv.Checker(f.resource).Check(ctx, tok.AccessToken)
	if err != nil || a.ClientID != id || !a.CanRead() || a.CanWrite() {
		t.Fatalf("the token: %+v %v", a, err)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err != nil {
		t.Errorf("refresh: %v", err)
	}
	if n := site.fetches.Load(); n != 1 {
		t.Errorf("the document was fetched %d times, want once (kept)", n)
	}

	for name, u := range map[string]string{
		"another client_id inside":   strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/other.json")), 1),
		"an unlisted redirect":       strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(callback), url.QueryEscape("http://127.0.0.1:9999/elsewhere"), 1),
		"a secret":                   strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/secret.json")), 1),
		"too large":                  strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/big.json")), 1),
		"not JSON":                   strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/text.json")), 1),
		"a javascript: redirect":     strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/evilredo.json")), 1),
		"a redirect to the document": strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/moved")), 1),
		"none there":                 strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(site.url("/missing.json")), 1),
		"plain http":                 strings.Replace(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), url.QueryEscape(id), url.QueryEscape(strings.Replace(id, "https:", "http:", 1)), 1),
	} {
		resp, err := f.http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode < 400 || strings.Contains(loc, consentPath) {
			t.Errorf("%s: %d to %q", name, resp.StatusCode, loc)
		}
	}
	resp, err := http.Get(f.url + metadataPath)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(meta), `"client_id_metadata_document_supported":true`) {
		t.Errorf("metadata: %s", meta)
	}
}

// TestDocumentsStayOffTheLocalNetwork: a server reached from elsewhere
// fetches documents from public addresses only, so a client ID naming
// this machine or the home network cannot make it reach in (SSRF); one
// that is itself only on loopback may fetch from loopback.
func TestDocumentsStayOffTheLocalNetwork(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the document at %s was fetched", r.URL)
	}))
	defer site.Close()
	for _, addr := range []string{"127.0.0.1:443", "[::1]:443", "10.0.0.1:443", "192.168.1.1:443", "169.254.169.254:443", "0.0.0.0:443", "[fe80::1]:443", "100.101.102.103:443", "[fd7a:115c:a1e0::1]:443", "[::ffff:127.0.0.1]:443"} {
		if err := publicOnly("tcp", addr, nil); err == nil {
			t.Errorf("%s was allowed", addr)
		}
	}
	if err := publicOnly("tcp", "93.184.216.34:443", nil); err != nil {
		t.Errorf("a public address: %v", err)
	}
	d := newDocuments(nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The loopback site speaks plain HTTP; the dial is refused before
	// that could matter.
	_, err := d.document(ctx, "https://"+strings.TrimPrefix(site.URL, "http://")+"/app.json")
	if err == nil || !strings.Contains(err.Error(), "not a public address") {
		t.Errorf("a loopback document: %v", err)
	}
	for issuer, want := range map[string]bool{"http://127.0.0.1:8080": true, "http://localhost:3000": true, "http://[::1]:1": true, "https://vault.example.com": false, "http://192.168.1.5:3000": false} {
		if got := loopbackIssuer(issuer); got != want {
			t.Errorf("loopbackIssuer(%s) = %v", issuer, got)
		}
	}
}

// TestIsDocumentURL: what may name a client by its document.
func TestIsDocumentURL(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"https://app.example/client.json":     true,
		"https://app.example:8443/oauth/meta": true,
		"https://app.example":                 false,
		"https://app.example/":                false,
		"http://app.example/client.json":      false,
		"https://u:p@app.example/client.json": false,
		"https://app.example/c.json#x":        false,
		"https://app.example/c.json?x=1":      false,
		"https://app.example/a/../c.json":     false,
		"3f2a9c":                              false,
	} {
		if got := IsDocumentURL(id); got != want {
			t.Errorf("IsDocumentURL(%q) = %v", id, got)
		}
	}
}

// startWith is startAt with options for a new store.
func startWith(t *testing.T, o Options) *fixture {
	t.Helper()
	return startAtWith(t, filepath.Join(t.TempDir(), "oauth.json"), true, o)
}

// FuzzDocument: any bytes a site serves as a client's metadata document
// are refused, or give a client named by that URL whose every redirect
// URI registration would accept, and whose name is bounded.
func FuzzDocument(f *testing.F) {
	const id = "https://app.example/client.json"
	f.Add([]byte(`{"client_id":"` + id + `","client_name":"App","redirect_uris":["https://app.example/cb"]}`))
	f.Add([]byte(`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb","com.example.app:/cb"],"grant_types":["authorization_code"]}`))
	f.Add([]byte(`{"client_id":"` + id + `","redirect_uris":["javascript:alert(1)"]}`))
	f.Add([]byte(`{"client_id":"https://other.example/c.json","redirect_uris":["https://app.example/cb"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc registration
		if err := json.Unmarshal(data, &doc); err != nil {
			return
		}
		c, err := documentClient(doc, id)
		if err != nil {
			return
		}
		if c.ID != id || len(c.Name) > 100 || c.Name == "" || len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > 10 {
			t.Fatalf("accepted %+v from %s", c, data)
		}
		for _, u := range c.RedirectURIs {
			if _, ok := redirectKind(u); !ok {
				t.Fatalf("accepted redirect URI %q from %s", u, data)
			}
		}
	})
}
