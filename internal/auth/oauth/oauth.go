// Package oauth is what an OAuth 2.1 resource server needs, as the MCP
// authorization specification (2025-06-18 on) has it: it checks the
// access tokens clients present (issuer, audience, expiry, signature,
// scopes), publishes the Protected Resource Metadata (RFC 9728) that
// tells a client where to get one, and words the challenges of a refusal
// (package bearer puts them on an HTTP face).
//
// Tokens come from an authorization server the user trusts: an external
// one (Issuer: discovery by RFC 8414 or OpenID metadata, its JWKS fetched
// and refetched when it rotates its keys). Nothing here logs or returns a
// token.
package oauth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// Scopes mean what a token may do with the vault: read, or read and
// write. A token with neither is refused (403 insufficient_scope); one
// with vault:read alone is served as --read-only serves.
const (
	ScopeRead  = "vault:read"
	ScopeWrite = "vault:write"
)

// Scopes are the scopes this server knows, for its metadata.
var Scopes = []string{ScopeRead, ScopeWrite}

// Access is what a checked token grants.
type Access struct {
	Subject  string
	ClientID string
	Scopes   []string
	Expires  time.Time
	// TokenID is the token's own id (a JWT's jti), when it has one.
	TokenID string
}

// CanWrite reports whether the token may change the vault.
func (a Access) CanWrite() bool { return slices.Contains(a.Scopes, ScopeWrite) }

// CanRead reports whether the token may use the vault at all (vault:write
// includes reading).
func (a Access) CanRead() bool { return a.CanWrite() || slices.Contains(a.Scopes, ScopeRead) }

// ErrInvalidToken is a token that is not good here: unreadable, badly
// signed, from another issuer, for another resource, expired or revoked.
// Its message says which, and never holds the token.
var ErrInvalidToken = errors.New("invalid_token")

// invalid is ErrInvalidToken saying why.
type invalid struct{ why string }

func (e invalid) Error() string        { return "the access token is not valid here: " + e.why }
func (e invalid) Is(target error) bool { return target == ErrInvalidToken }

// Invalid is an ErrInvalidToken saying why.
func Invalid(why string) error { return invalid{why} }

// Checker checks a presented access token.
type Checker interface {
	Check(ctx context.Context, token string) (Access, error)
}

// scopesOf reads a token's scopes: the space-separated "scope" claim
// (RFC 9068), or the list "scp" some providers use.
func scopesOf(scope string, scp []string) []string {
	if scope != "" {
		return strings.Fields(scope)
	}
	return scp
}
