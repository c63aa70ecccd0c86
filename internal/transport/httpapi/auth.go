package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/obsidian-mcp/obsidian-mcp/internal/access"
	"github.com/obsidian-mcp/obsidian-mcp/internal/oauth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/envelope"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// OAuth makes a face an OAuth 2.1 resource server (package oauth): every
// request needs an access token its Checker accepts, or the API key when
// one is set; a token granted vault:read alone makes its requests
// read-only.
type OAuth struct {
	Resource oauth.Resource
	Checker  TokenChecker
}

// TokenChecker checks an access token (oauth.Issuer).
type TokenChecker interface {
	Check(ctx context.Context, token string) (oauth.Access, error)
}

// readOnlyScope is the rule a read-only token's refusals name.
const readOnlyScope = "the access token grants vault:read, not vault:write"

// authorize lets a request through with what its credentials allow, or
// refuses it (nil): from the headers alone, before any body is read.
func (h *Server) authorize(w http.ResponseWriter, r *http.Request) *http.Request {
	o := h.opts.OAuth
	if o == nil {
		if ok, presented := h.opts.Key.Allows(r); !ok {
			h.refuseKey(w, r, presented)
			return nil
		}
		return r
	}
	if r.Method == http.MethodGet && slices.Contains(o.Resource.MetadataPaths(), r.URL.Path) {
		return r // the metadata tells a client where to get a token
	}
	if h.authServerPath(r.URL.Path) {
		return r // where a client gets one
	}
	r, refused := o.Authorize(r, h.opts.Key, h.logger)
	if refused != nil {
		if h.envelopeRefusal(w, r) {
			envelope.Write(w, envelope.AuthRequired(h.opts.Version, h.opts.GitSHA))
			return nil
		}
		refused.Write(w)
		return nil
	}
	return r
}

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
// token for o.Resource. It returns r with what the token allows (a
// vault:read token's requests read-only), or the refusal.
func (o *OAuth) Authorize(r *http.Request, key Key, logger *slog.Logger) (*http.Request, *Refusal) {
	// The API key, when set, keeps working beside OAuth.
	if key.Set() {
		if ok, _ := key.Allows(r); ok {
			return r, nil
		}
	}
	token, presented := Presented(r)
	if !presented {
		return r, &Refusal{http.StatusUnauthorized, o.Resource.Challenge("", "", strings.Join(oauth.Scopes, " ")), "UNAUTHORIZED",
			"this server needs an OAuth access token", "Connect through an MCP client that supports OAuth: it finds the authorization server from " + o.Resource.MetadataURL() + "."}
	}
	got, err := o.Checker.Check(r.Context(), token)
	if err != nil {
		why := "the access token could not be checked"
		if errors.Is(err, oauth.ErrInvalidToken) {
			why = err.Error()
		}
		logger.Info("refused an access token", "why", why, "remote", r.RemoteAddr)
		return r, &Refusal{http.StatusUnauthorized, o.Resource.Challenge("invalid_token", why, ""), "UNAUTHORIZED", why, "Get a new token from the authorization server (sign in again)."}
	}
	if !got.CanRead() {
		return r, &Refusal{http.StatusForbidden, o.Resource.Challenge("insufficient_scope", "the token grants neither vault:read nor vault:write", strings.Join(oauth.Scopes, " ")), "INSUFFICIENT_SCOPE",
			"the access token grants no use of the vault", "Ask for the scope vault:read (reading) or vault:write (reading and writing)."}
	}
	if !got.CanWrite() {
		return r.WithContext(access.WithReadOnly(r.Context(), readOnlyScope)), nil
	}
	return r, nil
}

// refuseKey refuses a request without the API key.
func (h *Server) refuseKey(w http.ResponseWriter, r *http.Request, presented bool) {
	if h.envelopeRefusal(w, r) {
		// The envelope API answers 200 with AUTH_REQUIRED.
		envelope.Write(w, envelope.AuthRequired(h.opts.Version, h.opts.GitSHA))
		return
	}
	RefuseKey(w, presented, "obsidian-mcp")
}

// authServerPath reports whether path is the built-in authorization
// server's.
func (h *Server) authServerPath(path string) bool { return PathIn(path, h.opts.AuthPaths) }

// PathIn reports whether path is one of paths: exact ones, and prefixes
// ending in '/' (the built-in authorization server's, as
// authserver.Server.Paths gives them).
func PathIn(path string, paths []string) bool {
	for _, p := range paths {
		if path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// stepUp is serve's scope challenge (OAuth.StepUp) on a buffered body.
func (h *Server) stepUp(w http.ResponseWriter, r *http.Request) bool {
	body, ok := r.Body.(*bodyBuffer)
	if h.opts.OAuth == nil || !ok {
		return false
	}
	return h.opts.OAuth.StepUp(w, r, body.data, h.opts.Writes)
}

// StepUp refuses, with 403 insufficient_scope and the scope to ask for, a
// tool call that would change the vault (writes says which tools do) from
// a client whose token grants reading alone: the MCP authorization spec's
// scope challenge, which lets the client ask the person for vault:write
// (step-up authorization). It reports whether it answered; other requests
// of such a client go on, read-only.
func (o *OAuth) StepUp(w http.ResponseWriter, r *http.Request, body []byte, writes func(tool string) bool) bool {
	if writes == nil {
		return false
	}
	if _, ro := access.ReadOnly(r.Context()); !ro {
		return false
	}
	got := gjson.GetManyBytes(body, "method", "params.name")
	if got[0].String() != "tools/call" || !writes(got[1].String()) {
		return false
	}
	(&Refusal{http.StatusForbidden,
		o.Resource.Challenge("insufficient_scope", got[1].String()+" changes the vault, and the token grants vault:read only", strings.Join(oauth.Scopes, " ")),
		"INSUFFICIENT_SCOPE", got[1].String() + " changes the vault, and this client's token grants reading only (vault:read)",
		"Sign in again granting vault:write (allow changes on the consent page) to use it."}).Write(w)
	return true
}
