package authserver

import (
	"context"
	"crypto/rsa"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

// Lifetimes: an authorization request (from /authorize to the code's
// exchange) and an access token. A refresh token lasts as long as its
// grant.
const (
	requestLifetime = 10 * time.Minute
	accessLifetime  = time.Hour
)

// subject is the one user of this server: the vault's owner.
const subject = "owner"

// storage is op.Storage over a Store: the grants persist; authorization
// requests and codes live in memory for minutes.
type storage struct {
	store *Store
	docs  *documents
	now   func() time.Time

	mu       sync.Mutex
	requests map[string]*authRequest
	codes    map[string]string   // code → request id
	used     map[string]usedCode // codes exchanged, kept to catch a replay
}

func newStorage(store *Store, docs *documents) *storage {
	return &storage{store: store, docs: docs, now: time.Now, requests: map[string]*authRequest{}, codes: map[string]string{}, used: map[string]usedCode{}}
}

// authRequest is one /authorize, waiting for the owner's consent, then
// for its code's exchange.
type authRequest struct {
	id       string
	req      oidc.AuthRequest
	resource string
	scopes   []string
	created  time.Time
	csrf     string
	done     bool
	// addr is where the request came from (pending.go's bound).
	addr string
	// grant is the grant its code's exchange made.
	grant string
}

func (a *authRequest) GetID() string                      { return a.id }
func (a *authRequest) GetACR() string                     { return "" }
func (a *authRequest) GetAMR() []string                   { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string              { return []string{a.resource} }
func (a *authRequest) GetAuthTime() time.Time             { return a.created }
func (a *authRequest) GetClientID() string                { return a.req.ClientID }
func (a *authRequest) GetNonce() string                   { return a.req.Nonce }
func (a *authRequest) GetRedirectURI() string             { return a.req.RedirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType { return a.req.ResponseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode { return a.req.ResponseMode }
func (a *authRequest) GetScopes() []string                { return a.scopes }
func (a *authRequest) GetState() string                   { return a.req.State }
func (a *authRequest) GetSubject() string                 { return subject }
func (a *authRequest) Done() bool                         { return a.done }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	return &oidc.CodeChallenge{Challenge: a.req.CodeChallenge, Method: a.req.CodeChallengeMethod}
}

// vaultScopes keeps the vault's scopes of asked (both when it asks for
// none: the owner chooses on the consent page), and offline_access, so
// that the client gets a refresh token and the owner approves it once.
func vaultScopes(asked []string) []string {
	var out []string
	for _, s := range asked {
		if s == oauth.ScopeRead || s == oauth.ScopeWrite {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = slices.Clone(oauth.Scopes)
	}
	return append(out, oidc.ScopeOfflineAccess)
}

func (s *storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	resource, _ := ctx.Value(resourceKey{}).(string)
	if resource == "" {
		return nil, oidc.ErrServerError().WithDescription("no resource for this request")
	}
	if req.CodeChallenge == "" || req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("PKCE with S256 is required: send code_challenge and code_challenge_method=S256")
	}
	addr, _ := ctx.Value(addrKey{}).(string)
	a := &authRequest{id: newID(), req: *req, resource: resource, scopes: vaultScopes(req.Scopes), created: s.now(), csrf: newID(), addr: addr}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	s.makeRoom(a)
	s.requests[a.id] = a
	return a, nil
}

// sweep forgets requests past their lifetime (s.mu held).
func (s *storage) sweep() {
	for id, a := range s.requests {
		if s.now().Sub(a.created) > requestLifetime {
			delete(s.requests, id)
		}
	}
	for code, id := range s.codes {
		if s.requests[id] == nil {
			delete(s.codes, code)
		}
	}
	for code, u := range s.used {
		if s.now().Sub(u.at) > requestLifetime {
			delete(s.used, code)
		}
	}
}

func (s *storage) request(id string) (*authRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	a := s.requests[id]
	if a == nil {
		return nil, oidc.ErrInvalidRequest().WithDescription("this sign-in has expired or was used: start again from the app")
	}
	return a, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	return s.request(id)
}

func (s *storage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	u, replayed := s.used[code]
	delete(s.used, code)
	s.mu.Unlock()
	if replayed {
		// RFC 6749 §4.1.2, OAuth 2.1 §4.1.3: a code used twice was
		// stolen, or the first use was; what it issued is revoked.
		if u.grant != "" {
			_, _ = s.store.Revoke(u.grant)
		}
		return nil, oidc.ErrInvalidGrant().WithDescription("this authorization code was used before: the tokens issued from it are revoked; sign in again")
	}
	if !ok {
		return nil, oidc.ErrInvalidGrant().WithDescription("the authorization code is unknown, expired or already used")
	}
	return s.request(id)
}

// usedCode is a code exchanged, and the grant it made.
type usedCode struct {
	grant string
	at    time.Time
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest is called once a code is exchanged: the code cannot
// be used twice.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.requests[id]
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
			if a != nil && a.grant != "" {
				s.used[code] = usedCode{grant: a.grant, at: s.now()}
			}
		}
	}
	return nil
}

// approve records the owner's consent to request id, with its scopes
// narrowed to what the owner allowed.
func (s *storage) approve(id, csrf string, write bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.requests[id]
	if a == nil || a.csrf != csrf || a.done {
		return errors.New("this consent page is out of date: start again from the app")
	}
	if !write {
		a.scopes = slices.DeleteFunc(a.scopes, func(sc string) bool { return sc == oauth.ScopeWrite })
		if !slices.Contains(a.scopes, oauth.ScopeRead) {
			a.scopes = append(a.scopes, oauth.ScopeRead)
		}
	}
	a.done = true
	return nil
}

// accessID names an access token: its grant, then a random part, so that
// revoking the grant refuses the token at once.
func accessID(grant string) string { return grant + "." + newID()[:12] }

// grantOf is the grant an access token id names.
func grantOf(tokenID string) string { g, _, _ := strings.Cut(tokenID, "."); return g }

// sameTarget refuses a token request whose resource parameter names
// another resource than the grant's (RFC 8707 §2.2).
func sameTarget(ctx context.Context, req op.TokenRequest) error {
	if res, _ := ctx.Value(resourceKey{}).(string); res != "" && !slices.Contains(req.GetAudience(), res) {
		return &oidc.Error{ErrorType: "invalid_target", Description: "this grant is for " + strings.Join(req.GetAudience(), ", ") + ", not " + res}
	}
	return nil
}

// CreateAccessToken is a new grant's first access token (its refresh
// token, for a client that did not ask for one, is not handed out).
func (s *storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, _, expires, err := s.CreateAccessAndRefreshTokens(ctx, req, "")
	return id, expires, err
}

func clientOf(req op.TokenRequest) string {
	if a, ok := req.(interface{ GetClientID() string }); ok {
		return a.GetClientID()
	}
	return ""
}

func (s *storage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	if err := sameTarget(ctx, req); err != nil {
		return "", "", time.Time{}, err
	}
	if current == "" {
		g, refresh, err := s.store.NewGrant(Grant{ClientID: clientOf(req), Subject: subject, Scopes: req.GetScopes(), Audience: req.GetAudience()})
		if err != nil {
			return "", "", time.Time{}, err
		}
		if a, ok := req.(*authRequest); ok {
			s.mu.Lock()
			a.grant = g.ID
			s.mu.Unlock()
		}
		return accessID(g.ID), refresh, s.now().Add(accessLifetime), nil
	}
	r, ok := req.(*refreshRequest)
	if !ok {
		return "", "", time.Time{}, oidc.ErrInvalidGrant()
	}
	refresh, err := s.store.Rotate(r.g.ID, current)
	if err != nil {
		return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("%s", err.Error())
	}
	return accessID(r.g.ID), refresh, s.now().Add(accessLifetime), nil
}

// refreshRequest is a grant, as a refresh token presents it.
type refreshRequest struct {
	g      Grant
	scopes []string
}

func (r *refreshRequest) GetAMR() []string             { return []string{"pwd"} }
func (r *refreshRequest) GetAudience() []string        { return r.g.Audience }
func (r *refreshRequest) GetAuthTime() time.Time       { return r.g.Created }
func (r *refreshRequest) GetClientID() string          { return r.g.ClientID }
func (r *refreshRequest) GetScopes() []string          { return r.scopes }
func (r *refreshRequest) GetSubject() string           { return r.g.Subject }
func (r *refreshRequest) SetCurrentScopes(sc []string) { r.scopes = sc }

func (s *storage) TokenRequestByRefreshToken(_ context.Context, token string) (op.RefreshTokenRequest, error) {
	g, err := s.store.ByRefresh(token)
	if err != nil {
		return nil, oidc.ErrInvalidGrant().WithDescription("%s", err.Error())
	}
	return &refreshRequest{g: g, scopes: g.Scopes}, nil
}

func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

// RevokeToken (RFC 7009): a refresh token, or an access token's id, ends
// its whole grant.
func (s *storage) RevokeToken(_ context.Context, token, _, clientID string) *oidc.Error {
	if g, err := s.store.ByRefresh(token); err == nil {
		if g.ClientID != clientID {
			return oidc.ErrInvalidClient().WithDescription("the token is another client's")
		}
		_, _ = s.store.Revoke(g.ID)
		return nil
	}
	if g := grantOf(token); len(g) == 32 && s.store.Active(g) {
		_, _ = s.store.Revoke(g)
	}
	return nil // RFC 7009 §2.2: an unknown token is no error
}

func (s *storage) GetRefreshTokenInfo(_ context.Context, clientID, token string) (string, string, error) {
	g, err := s.store.ByRefresh(token)
	if err != nil || g.ClientID != clientID {
		return "", "", op.ErrInvalidRefreshToken
	}
	return g.Subject, hash(token), nil
}

// signingKey is op.SigningKey over the store's key.
type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.id }

// publicKey is op.Key.
type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	key, id := s.store.signingKey()
	return signingKey{id, key}, nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	key, id := s.store.signingKey()
	return []op.Key{publicKey{signingKey{id, key}}}, nil
}

func (s *storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.client(ctx, id)
	if err != nil {
		return nil, oidc.ErrInvalidClient().WithDescription("%s", err.Error())
	}
	return client{c}, nil
}

// client is a registered client, or one named by the URL of its metadata
// document (cimd.go).
func (s *storage) client(ctx context.Context, id string) (Client, error) {
	if c, ok := s.store.Client(id); ok {
		return c, nil
	}
	if IsDocumentURL(id) {
		return s.docs.document(ctx, id)
	}
	return Client{}, errors.New("unknown client: register first (" + registerPath + "), or name your client ID metadata document's https URL")
}

func (s *storage) AuthorizeClientIDSecret(context.Context, string, string) error {
	return oidc.ErrInvalidClient().WithDescription("clients here are public (token_endpoint_auth_method none) and prove themselves with PKCE")
}

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}
func (s *storage) SetUserinfoFromToken(context.Context, *oidc.UserInfo, string, string, string) error {
	return nil
}
func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not offered: tokens are JWTs checked by this server itself")
}

// GetPrivateClaimsFromScopes puts the vault's scopes in the access token
// (RFC 9068's scope claim), which the resource server reads.
func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	var vault []string
	for _, sc := range scopes {
		if sc == oauth.ScopeRead || sc == oauth.ScopeWrite {
			vault = append(vault, sc)
		}
	}
	return map[string]any{"scope": strings.Join(vault, " ")}, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("JWT client authentication is not offered")
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("the JWT profile grant is not offered")
}

func (s *storage) Health(context.Context) error { return nil }
