package authserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

// client is a registered Client as op.Client: public (PKCE, no secret),
// the authorization code and refresh token grants, JWT access tokens.
type client struct{ c Client }

func (c client) GetID() string                    { return c.c.ID }
func (c client) RedirectURIs() []string           { return c.c.RedirectURIs }
func (c client) PostLogoutRedirectURIs() []string { return nil }
func (c client) ApplicationType() op.ApplicationType {
	if c.c.Native {
		return op.ApplicationTypeNative // loopback redirects on any port (RFC 8252)
	}
	return op.ApplicationTypeWeb
}
func (c client) AuthMethod() oidc.AuthMethod { return oidc.AuthMethodNone }
func (c client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}
func (c client) LoginURL(id string) string           { return consentPath + "?id=" + url.QueryEscape(id) }
func (c client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c client) IDTokenLifetime() time.Duration      { return time.Hour }
func (c client) DevMode() bool                       { return false }
func (c client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c client) IsScopeAllowed(scope string) bool {
	return scope == oauth.ScopeRead || scope == oauth.ScopeWrite || scope == oidc.ScopeOfflineAccess
}
func (c client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c client) ClockSkew() time.Duration             { return 0 }

// registration is what a client sends to register (RFC 7591 §2), and
// what it is answered (§3.2.1).
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ClientID                string   `json:"client_id,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at,omitempty"`
}

// register serves dynamic client registration (RFC 7591): a public
// client, its redirect URIs exact (https, or loopback and custom schemes
// for a native app, RFC 8252). No secret is issued: a client proves itself
// with PKCE, and the owner approves it on the consent page.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		regError(w, http.StatusMethodNotAllowed, "invalid_request", "registration takes POST")
		return
	}
	var reg registration
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&reg); err != nil {
		regError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not JSON client metadata: "+err.Error())
		return
	}
	checked, bad := reg.client()
	if bad != nil {
		regError(w, http.StatusBadRequest, bad.code, bad.msg)
		return
	}
	c, err := s.store.AddClient(checked)
	if err != nil {
		regError(w, http.StatusInternalServerError, "server_error", "the client could not be recorded")
		return
	}
	s.logger.Info("an OAuth client registered", "client", c.ID, "name", c.Name, "redirect_uris", c.RedirectURIs)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(registration{ClientID: c.ID, ClientIDIssuedAt: c.Created.Unix(), RedirectURIs: c.RedirectURIs, ClientName: c.Name,
		TokenEndpointAuthMethod: "none", GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, Scope: strings.Join(oauth.Scopes, " ")})
}

// badMetadata is client metadata refused, with its RFC 7591 error code.
type badMetadata struct{ code, msg string }

func (e *badMetadata) Error() string { return e.msg }

// client checks what a client says of itself (registering, or in its
// metadata document) and makes it a Client with no id yet: a public
// client (no secret: PKCE), the code and refresh grants only, between 1
// and 10 redirect URIs of the kinds redirectKind accepts.
func (reg registration) client() (Client, *badMetadata) {
	if m := reg.TokenEndpointAuthMethod; m != "" && m != "none" {
		return Client{}, &badMetadata{"invalid_client_metadata", "token_endpoint_auth_method " + m + " is not offered: clients here are public (none) and use PKCE"}
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return Client{}, &badMetadata{"invalid_client_metadata", "grant type " + g + " is not offered: authorization_code and refresh_token are"}
		}
	}
	if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > 10 {
		return Client{}, &badMetadata{"invalid_redirect_uri", "give between 1 and 10 redirect_uris"}
	}
	native := true
	for _, u := range reg.RedirectURIs {
		kind, ok := redirectKind(u)
		if !ok {
			return Client{}, &badMetadata{"invalid_redirect_uri", "redirect URI " + u + " is not allowed: use https, a loopback http address, or an app's own scheme; no fragment"}
		}
		native = native && kind != "https"
	}
	return Client{Name: clientName(reg.ClientName), RedirectURIs: slices.Clone(reg.RedirectURIs), Native: native}, nil
}

// clientName is the name a client gives itself, bounded, or a word for
// none.
func clientName(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return "an unnamed app"
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return name
}

// redirectKind says what a redirect URI is: https, loopback, or an app's
// own scheme; ok is false for anything else (plain http elsewhere, a
// fragment, no scheme).
func redirectKind(raw string) (kind string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Fragment != "" || u.Scheme == "" {
		return "", false
	}
	switch u.Scheme {
	case "https":
		return "https", u.Host != ""
	case "http":
		_, loopback := op.HTTPLoopbackOrLocalhost(raw)
		return "loopback", loopback
	}
	if notPrivateUse[strings.ToLower(u.Scheme)] || len(u.Scheme) < 2 {
		return "", false
	}
	return "app", u.Host != "" || u.Opaque != "" || u.Path != ""
}

// notPrivateUse are the schemes that name something other than an app
// (RFC 8252 §7.1's private-use schemes are what is left): a browser's own
// pages, data carried in the URL, files, other protocols. A redirect to
// one would hand the code to no app, or to a page anyone can make
// (blob:, data:), or run it (javascript:).
var notPrivateUse = map[string]bool{
	"about": true, "blob": true, "data": true, "file": true, "filesystem": true, "javascript": true, "vbscript": true,
	"view-source": true, "ftp": true, "ftps": true, "sftp": true, "gopher": true, "ws": true, "wss": true,
	"mailto": true, "tel": true, "sms": true, "news": true, "nntp": true, "telnet": true, "ldap": true, "irc": true,
	"ircs": true, "urn": true, "jar": true, "resource": true, "chrome": true, "edge": true, "opera": true, "intent": true,
}

func regError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}
