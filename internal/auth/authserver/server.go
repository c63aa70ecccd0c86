// Package authserver is the built-in OAuth 2.1 authorization server of
// `obsidian-mcp serve --oauth`, for one person and their vault: clients
// (Claude on the web and the phone, any MCP client with OAuth) register
// themselves (RFC 7591), send the owner to a consent page that only the
// owner's passphrase approves, and get JWT access tokens for this one
// server (RFC 8707's audience) with vault:read or vault:write, and
// refresh tokens that rotate at each use; a refresh token used twice
// revokes its grant. The protocol is zitadel/oidc's provider (an OpenID
// Certified implementation; docs/oauth.md says why that one); the grants
// persist in a Store, and the owner lists and revokes them with
// `obsidian-mcp oauth`.
package authserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

// Paths of ours beside the provider's.
const (
	consentPath  = "/oauth/consent"
	registerPath = "/oauth/register"
	metadataPath = "/.well-known/oauth-authorization-server"
)

// Options configure a Server.
type Options struct {
	Store *Store
	// Issuer is the server's address as clients reach it (scheme://host).
	Issuer string
	// Resources are the MCP endpoints it issues tokens for: serve's one
	// (<Issuer>/mcp), or each gateway namespace's (<Issuer>/mcp/<name>).
	// A token is for one of them (RFC 8707's audience), named by the
	// client's resource parameter, which may be left out when there is
	// only one.
	Resources []string
	Logger    *slog.Logger
	// Documents fetches client ID metadata documents (nil: a client that
	// reaches public addresses alone, unless the issuer is on loopback).
	Documents *http.Client
}

// Server is the authorization server.
type Server struct {
	store     *Store
	st        *storage
	provider  *op.Provider
	issuer    string
	resources []string
	logger    *slog.Logger
	limit     *limiter
}

// New makes the server. The owner must have set a passphrase
// (`obsidian-mcp oauth passphrase`): without one no client could be
// approved.
func New(o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	var key [32]byte
	_, _ = rand.Read(key[:]) // codes live in this process only
	if len(o.Resources) == 0 {
		return nil, errors.New("authserver: no resource to issue tokens for")
	}
	st := newStorage(o.Store, newDocuments(o.Documents, loopbackIssuer(o.Issuer)))
	opts := []op.Option{op.WithLogger(o.Logger)}
	if strings.HasPrefix(o.Issuer, "http://") {
		opts = append(opts, op.WithAllowInsecure()) // loopback: checked by the caller
	}
	provider, err := op.NewProvider(&op.Config{CryptoKey: key, CodeMethodS256: true, GrantTypeRefreshToken: true,
		SupportedUILocales: []language.Tag{language.English}, SupportedScopes: append(oauth.Scopes, "offline_access")},
		st, op.StaticIssuer(o.Issuer), opts...)
	if err != nil {
		return nil, err
	}
	return &Server{store: o.Store, st: st, provider: provider, issuer: o.Issuer, resources: o.Resources, logger: o.Logger, limit: newLimiter()}, nil
}

// loopbackIssuer reports whether the server is reached on this machine
// alone (its issuer names a loopback address or localhost).
func loopbackIssuer(issuer string) bool {
	u, err := url.Parse(issuer)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Hostname(), "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(u.Hostname())
	return err == nil && ip.IsLoopback()
}

// Metadata is the server's metadata (RFC 8414).
func (s *Server) Metadata() oauth.Metadata {
	return oauth.Metadata{Issuer: s.issuer, AuthorizationEndpoint: s.issuer + "/authorize", TokenEndpoint: s.issuer + "/oauth/token",
		JWKSURI: s.issuer + "/keys", RegistrationEndpoint: s.issuer + registerPath, ScopesSupported: oauth.Scopes}
}

// Paths are what the server answers, for the HTTP face to let through
// without a token: exact paths, and prefixes ending in '/'.
func (s *Server) Paths() []string {
	return []string{metadataPath, "/.well-known/openid-configuration", "/authorize", "/authorize/", "/oauth/", "/keys", "/revoke", "/callback"}
}

// Handler serves the authorization server.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(metadataPath, s.serveMetadata)
	mux.HandleFunc(registerPath, s.register)
	mux.HandleFunc(consentPath, s.consent)
	mux.Handle("/", s.targets(s.provider))
	return mux
}

// serveMetadata is RFC 8414's document, registration included.
func (s *Server) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	m := s.Metadata()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"issuer": m.Issuer, "authorization_endpoint": m.AuthorizationEndpoint, "token_endpoint": m.TokenEndpoint,
		"jwks_uri": m.JWKSURI, "registration_endpoint": m.RegistrationEndpoint, "revocation_endpoint": s.issuer + "/revoke",
		"scopes_supported": oauth.Scopes, "response_types_supported": []string{"code"},
		"grant_types_supported": []string{"authorization_code", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"}, "revocation_endpoint_auth_methods_supported": []string{"none"},
		"client_id_metadata_document_supported": true,
	})
}

// targets refuses an authorization or token request for a resource this
// server does not issue tokens for, or for several at once (RFC 8707 §2:
// invalid_target), and hands the one named to the storage in the
// request's context. It also fills in what the provider leaves out:
// no-store on token responses, and the default scope.
func (s *Server) targets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/authorize" || r.URL.Path == "/oauth/token" {
			_ = r.ParseForm()
			asked := r.Form["resource"]
			// /authorize is for a browser: its refusals are pages, and
			// only a request otherwise fit goes back to its app.
			fail := func(desc string) { regError(w, http.StatusBadRequest, "invalid_target", desc) }
			if r.URL.Path == "/authorize" {
				back, answered := s.screenAuthorize(w, r)
				if answered {
					return
				}
				fail = func(desc string) {
					refuse(w, "The app asked for a token for the wrong place: "+desc+".", backWith(back, "invalid_target", desc, r.Form.Get("state")))
				}
			}
			var res string
			switch {
			case len(asked) > 1:
				fail("a token here is for one resource: name one of " + strings.Join(s.resources, ", "))
				return
			case len(asked) == 1:
				if res = s.resource(asked[0]); res == "" {
					fail("this server issues tokens for " + strings.Join(s.resources, ", ") + " only")
					return
				}
			case r.URL.Path == "/authorize" && len(s.resources) > 1:
				fail("name the MCP endpoint the token is for with the resource parameter (RFC 8707): one of " + strings.Join(s.resources, ", "))
				return
			case r.URL.Path == "/authorize":
				res = s.resources[0]
			}
			if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
				r = r.WithContext(context.WithValue(r.Context(), addrKey{}, host))
			}
			if res != "" {
				r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, res))
			}
		}
		if r.URL.Path == "/oauth/token" {
			// RFC 6749 §5.1: a response with tokens must not be cached
			// (the provider does not say so; the conformance suite
			// checks it).
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Pragma", "no-cache")
		}
		if r.URL.Path == "/authorize" && r.Method == http.MethodGet && strings.TrimSpace(r.URL.Query().Get("scope")) == "" {
			// OAuth 2.1 lets a client leave the scope out, for the
			// server's default: both, which the owner narrows on the
			// consent page. The provider wants one, so it is written in.
			q := r.URL.Query()
			q.Set("scope", strings.Join(oauth.Scopes, " "))
			r.URL.RawQuery = q.Encode()
			r.Form = nil
		}
		next.ServeHTTP(w, r)
	})
}

// resourceKey carries the resource a request names (targets) to the
// storage.
type resourceKey struct{}

// resource is the one of s.resources that asked names (a trailing '/'
// aside), or "".
func (s *Server) resource(asked string) string {
	for _, res := range s.resources {
		if strings.TrimSuffix(asked, "/") == strings.TrimSuffix(res, "/") {
			return res
		}
	}
	return ""
}

// Checker is the side of the resource server at resource (one of
// Options.Resources): a token must be one this server signed, for that
// resource, unexpired, and its grant must stand, so a revoked grant's
// tokens are refused at the next request.
func (s *Server) Checker(resource string) oauth.Checker {
	key, _ := s.store.signingKey()
	return checker{iss: oauth.Local(s.Metadata(), resource, &key.PublicKey), store: s.store}
}

type checker struct {
	iss   *oauth.Issuer
	store *Store
}

func (c checker) Check(ctx context.Context, token string) (oauth.Access, error) {
	a, err := c.iss.Check(ctx, token)
	if err != nil {
		return a, err
	}
	if !c.store.Active(grantOf(a.TokenID)) {
		return oauth.Access{}, oauth.Invalid("its grant was revoked")
	}
	return a, nil
}
