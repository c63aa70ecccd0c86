// Package bearer makes an HTTP face an OAuth 2.1 resource server: every
// request needs an access token its Checker accepts (or the face's API
// key, when one is set), and what the token granted goes on with the
// request (auth.Limit) for the one guard to read; a call the guard
// refuses for the grant alone is answered with the scope challenge that
// lets the client ask for more (step-up).
package bearer

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// Verifier checks the tokens of one resource.
type Verifier struct {
	Resource oauth.Resource
	Checker  TokenChecker
}

// TokenChecker checks an access token (oauth.Issuer, the built-in
// server's).
type TokenChecker interface {
	Check(ctx context.Context, token string) (oauth.Access, error)
}

// Key is a face's API key, which keeps working beside OAuth.
type Key interface {
	Set() bool
	Allows(r *http.Request) (ok, presented bool)
}

// readingOnly is the rule a vault:read token's refusals name.
const readingOnly = "the access token grants vault:read, not vault:write"

// Refusal is an OAuth refusal: its status, its WWW-Authenticate challenge,
// and what the body says.
type Refusal struct {
	Status             int
	Challenge          string
	Code, Msg, Details string
}

// Write answers with the refusal.
func (f *Refusal) Write(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", f.Challenge)
	mcphttp.Refuse(w, f.Status, f.Code, f.Msg, f.Details)
}

// Authorize checks r's credentials: the API key, when set, or an access
// token for v.Resource. It returns r with what the token grants (a
// vault:read token's requests limited to reading), or the refusal.
func (v *Verifier) Authorize(r *http.Request, key Key, logger *slog.Logger) (*http.Request, *Refusal) {
	if key != nil && key.Set() {
		if ok, _ := key.Allows(r); ok {
			return r.WithContext(auth.As(r.Context(), "the API key")), nil
		}
	}
	token, presented := Presented(r)
	if !presented {
		return r, &Refusal{http.StatusUnauthorized, v.Resource.Challenge("", "", strings.Join(oauth.Scopes, " ")), "UNAUTHORIZED",
			"this server needs an OAuth access token", "Connect through an MCP client that supports OAuth: it finds the authorization server from " + v.Resource.MetadataURL() + "."}
	}
	got, err := v.Checker.Check(r.Context(), token)
	if err != nil {
		why := "the access token could not be checked"
		if errors.Is(err, oauth.ErrInvalidToken) {
			why = err.Error()
		}
		logger.Info("refused an access token", "why", why, "remote", r.RemoteAddr)
		return r, &Refusal{http.StatusUnauthorized, v.Resource.Challenge("invalid_token", why, ""), "UNAUTHORIZED", why, "Get a new token from the authorization server (sign in again)."}
	}
	if !got.CanRead() {
		return r, &Refusal{http.StatusForbidden, v.Resource.Challenge("insufficient_scope", "the token grants neither vault:read nor vault:write", strings.Join(oauth.Scopes, " ")), "INSUFFICIENT_SCOPE",
			"the access token grants no use of the vault", "Ask for the scope vault:read (reading) or vault:write (reading and writing)."}
	}
	ctx := r.Context()
	if got.ClientID != "" {
		ctx = auth.As(ctx, "OAuth client "+got.ClientID)
	}
	if !got.CanWrite() {
		ctx = auth.Limit(ctx, readingOnly)
	}
	return r.WithContext(ctx), nil
}

// StepUp answers, with 403 insufficient_scope and the scope to ask for,
// a request whose tool calls guard refuses for the client's grant alone:
// the MCP authorization specification's scope challenge, which lets the
// client ask the person for vault:write. It reports whether it answered.
// It fits mcphttp.Options.Screen.
func (v *Verifier) StepUp(w http.ResponseWriter, r *http.Request, guard auth.Guard, msgs []*mcphttp.Message) bool {
	for _, m := range msgs {
		tool := m.Tool
		if m.Method != "tools/call" {
			continue
		}
		if no := guard.Check(r.Context(), tool); no == nil || !no.ByGrant {
			continue
		}
		(&Refusal{http.StatusForbidden,
			v.Resource.Challenge("insufficient_scope", tool+" changes the vault, and the token grants vault:read only", strings.Join(oauth.Scopes, " ")),
			"INSUFFICIENT_SCOPE", tool + " changes the vault, and this client's token grants reading only (vault:read)",
			"Sign in again granting vault:write (allow changes on the consent page) to use it."}).Write(w)
		return true
	}
	return false
}

// Presented is the credential a request carries, from any of the three
// headers clients use: Authorization: Bearer, X-Api-Key,
// X-ObsiScripta-Api-Key.
func Presented(r *http.Request) (string, bool) {
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, token, ok := strings.Cut(a, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token), true
		}
	}
	for _, h := range []string{"X-Api-Key", "X-ObsiScripta-Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			return v, true
		}
	}
	return "", false
}
