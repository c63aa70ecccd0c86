package authserver

import (
	_ "embed"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

//go:embed consent.html
var consentHTML string

var consentPage = template.Must(template.New("consent").Parse(consentHTML))

// consentView is what the page shows.
type consentView struct {
	ID, CSRF, Client, Redirect, Resource string
	// Site is the host a client ID metadata document came from.
	Site string
	// AskWrite shows the box that lets the app change notes, unticked:
	// only when the app asked for vault:write, or for no vault scope.
	AskWrite     bool
	Error        string
	NoPassphrase bool
}

// consent is the page where the owner approves a client: GET shows which
// client, where it will be sent back, and what it asks; POST approves it
// with the owner's passphrase. The page cannot be framed (clickjacking),
// its form carries a token only this request's page has (CSRF), and
// wrong passphrases slow every later attempt down (limiter).
func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	// form-action covers the redirects after the post too: this server,
	// then the app's redirect URI (which the request must name).
	target := "'self'"
	if a, err := s.st.request(r.FormValue("id")); err == nil {
		target += " " + sourceOf(a.GetRedirectURI())
	}
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action "+target+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "same-origin") // no-referrer would make the form's Origin "null"
	switch r.Method {
	case http.MethodGet:
		s.showConsent(w, r, r.URL.Query().Get("id"), "", http.StatusOK)
	case http.MethodPost:
		s.approve(w, r)
	default:
		http.Error(w, "GET or POST", http.StatusMethodNotAllowed)
	}
}

func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, id, problem string, status int) {
	a, err := s.st.request(id)
	if err != nil {
		http.Error(w, "This sign-in has expired or was already used. Start again from the app.", http.StatusBadRequest)
		return
	}
	c, err := s.st.client(r.Context(), a.GetClientID())
	if err != nil {
		http.Error(w, "This app can no longer be found: "+err.Error(), http.StatusBadRequest)
		return
	}
	var site string
	if IsDocumentURL(c.ID) {
		u, _ := url.Parse(c.ID)
		site = u.Host
	}
	v := consentView{ID: id, CSRF: a.csrf, Client: c.Name, Site: site, Redirect: a.GetRedirectURI(), Resource: a.resource,
		AskWrite: slices.Contains(a.scopes, oauth.ScopeWrite), Error: problem, NoPassphrase: !s.store.HasPassphrase()}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = consentPage.Execute(w, v)
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	// A form posted from another site is refused before anything else.
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !sameOrigin(o, s.issuer) {
		http.Error(w, "This form can only be sent from this server's own page.", http.StatusForbidden)
		return
	}
	id := r.PostFormValue("id")
	a, err := s.st.request(id)
	if err != nil || r.PostFormValue("csrf") != a.csrf {
		http.Error(w, "This consent page is out of date. Start again from the app.", http.StatusForbidden)
		return
	}
	if r.PostFormValue("decision") == "deny" {
		_ = s.st.DeleteAuthRequest(r.Context(), id)
		u, _ := url.Parse(a.GetRedirectURI())
		q := u.Query()
		q.Set("error", "access_denied")
		if a.GetState() != "" {
			q.Set("state", a.GetState())
		}
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
		return
	}
	right, fails := s.limit.check(func() bool { return s.store.CheckPassphrase(r.PostFormValue("passphrase")) })
	if !right {
		s.logger.Warn("a wrong passphrase on the OAuth consent page", "client", a.GetClientID(), "remote", r.RemoteAddr, "wrong_in_a_row", fails)
		s.showConsent(w, r, id, "That is not the passphrase.", http.StatusUnauthorized)
		return
	}
	if err := s.st.approve(id, a.csrf, r.PostFormValue("write") == "on"); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	s.logger.Info("the owner approved an OAuth client", "client", a.GetClientID(), "write", r.PostFormValue("write") == "on")
	http.Redirect(w, r, op.AuthCallbackURL(s.provider)(r.Context(), id), http.StatusSeeOther)
}

// sourceOf is a redirect URI as a CSP source: its origin, or its scheme
// for an app's own.
func sourceOf(redirect string) string {
	u, err := url.Parse(redirect)
	switch {
	case err != nil:
		return ""
	case u.Scheme == "http" || u.Scheme == "https":
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}

func sameOrigin(origin, issuer string) bool {
	o, err1 := url.Parse(origin)
	i, err2 := url.Parse(issuer)
	return err1 == nil && err2 == nil && o.Scheme == i.Scheme && o.Host == i.Host
}

// limiter checks passphrases one at a time, so that guesses sent at once
// cost one bcrypt each in turn (about 60–120 ms): at most some 16 guesses
// a second, whoever sends them. That is the whole limit, and it is gentle
// on purpose: a stranger's wrong guesses never make the owner wait more
// than the few checks ahead of theirs (a limit that grew with each wrong
// guess kept the owner's right passphrase out for minutes, and behind a
// tunnel every request comes from one address, so it cannot tell them
// apart). What keeps guessing hopeless is the passphrase itself: `oauth
// passphrase` takes only one estimated at 10^14 guesses or more
// (CheckStrength), years of guessing at that rate (docs/oauth.md).
type limiter struct {
	checking sync.Mutex // held through an attempt
	fails    int        // wrong in a row, for the log; guarded by checking
}

func newLimiter() *limiter { return &limiter{} }

// check runs try, the passphrase's check, after any check under way, and
// says whether it was right and how many wrong ones came in a row.
func (l *limiter) check(try func() bool) (right bool, fails int) {
	l.checking.Lock()
	defer l.checking.Unlock()
	right = try()
	if right {
		l.fails = 0
	} else {
		l.fails++
	}
	return right, l.fails
}
