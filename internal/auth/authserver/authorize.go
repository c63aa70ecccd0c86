package authserver

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// An authorization request is screened before the provider sees it, so
// that this server never sends a browser anywhere on a request it would
// refuse (RFC 9700 §4.11.1: an authorization server must not be an open
// redirector). Anyone may register a client with a redirect URI of their
// choosing; a bad request naming it was redirected there, on a link of
// the owner's own server. Now a request whose app is unknown, whose
// redirect URI is not one it registered, or that is not a PKCE code
// request, gets an error page here and goes nowhere; one whose only fault
// is its resource gets a page with a link back to its app, which the
// person follows or not.

var errorPage = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Sign-in refused</title>
<style>body{font-family:system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em;line-height:1.5}code{word-break:break-all}</style>
</head><body>
<h1>This sign-in cannot go on</h1>
<p id="error">{{.Message}}</p>
{{if .Back}}<p><a id="back" href="{{.Back}}">Go back to the app</a> (it will be told why).</p>
{{else}}<p>Nothing was sent anywhere. Start again from the app; if this keeps happening, the app is not set up for this server.</p>{{end}}
</body></html>
`))

// refuse shows the error page: message, and a link back to the app when
// back is set.
func refuse(w http.ResponseWriter, message, back string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(http.StatusBadRequest)
	_ = errorPage.Execute(w, struct{ Message, Back string }{message, back})
}

// screenAuthorize checks r, an /authorize request with its form parsed,
// and answers it with the error page when it must not go on; back is the
// app's redirect URI, once it is known to be one the app registered.
func (s *Server) screenAuthorize(w http.ResponseWriter, r *http.Request) (back string, answered bool) {
	q := r.Form
	id := q.Get("client_id")
	if id == "" {
		refuse(w, "The sign-in link names no app (client_id is missing).", "")
		return "", true
	}
	c, err := s.st.client(r.Context(), id)
	if err != nil {
		refuse(w, "The sign-in link names an app this server does not know ("+id+"): "+err.Error(), "")
		return "", true
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !registered(c.RedirectURIs, redirect) {
		refuse(w, "The sign-in link would send you to "+redirect+", which is not an address the app "+c.Name+" registered.", "")
		return "", true
	}
	switch {
	case q.Get("response_type") != "code":
		refuse(w, "The app asked for a response_type of "+q.Get("response_type")+"; this server gives codes only (response_type=code).", "")
		return "", true
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		refuse(w, "The app did not use PKCE with S256 (code_challenge and code_challenge_method=S256), which this server requires.", "")
		return "", true
	}
	return redirect, false
}

// backWith is the app's redirect URI carrying an OAuth error and the
// request's state.
func backWith(redirect, code, desc, state string) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return ""
	}
	v := u.Query()
	v.Set("error", code)
	v.Set("error_description", desc)
	if state != "" {
		v.Set("state", state)
	}
	u.RawQuery = v.Encode()
	return u.String()
}

// registered reports whether redirect is one of the app's redirect URIs:
// exactly, or, for a loopback one, on any port (RFC 8252 §7.3).
func registered(uris []string, redirect string) bool {
	if redirect == "" {
		return false
	}
	for _, u := range uris {
		if u == redirect {
			return true
		}
		if _, ok := op.HTTPLoopbackOrLocalhost(u); ok && sameButPort(u, redirect) {
			return true
		}
	}
	return false
}

// sameButPort reports whether a and b are loopback URIs that differ in
// their port alone.
func sameButPort(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.Scheme != ub.Scheme || !strings.EqualFold(ua.Hostname(), ub.Hostname()) {
		return false
	}
	if _, ok := op.HTTPLoopbackOrLocalhost(b); !ok {
		return false
	}
	return ua.Path == ub.Path && ua.RawQuery == ub.RawQuery
}
