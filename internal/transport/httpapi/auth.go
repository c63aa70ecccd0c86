package httpapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

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
	Checker  tokenChecker
}

// tokenChecker checks an access token (oauth.Issuer).
type tokenChecker interface {
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
	// The API key, when set, keeps working beside OAuth.
	if h.opts.Key.Set() {
		if ok, _ := h.opts.Key.Allows(r); ok {
			return r
		}
	}
	token, presented := Presented(r)
	if !presented {
		h.challenge(w, r, http.StatusUnauthorized, o.Resource.Challenge("", "", strings.Join(oauth.Scopes, " ")),
			"this server needs an OAuth access token", "Connect through an MCP client that supports OAuth: it finds the authorization server from "+o.Resource.MetadataURL()+".")
		return nil
	}
	got, err := o.Checker.Check(r.Context(), token)
	if err != nil {
		why := "the access token could not be checked"
		if errors.Is(err, oauth.ErrInvalidToken) {
			why = err.Error()
		}
		h.logger.Info("refused an access token", "why", why, "remote", r.RemoteAddr)
		h.challenge(w, r, http.StatusUnauthorized, o.Resource.Challenge("invalid_token", why, ""),
			why, "Get a new token from the authorization server (sign in again).")
		return nil
	}
	if !got.CanRead() {
		h.challenge(w, r, http.StatusForbidden, o.Resource.Challenge("insufficient_scope", "the token grants neither vault:read nor vault:write", strings.Join(oauth.Scopes, " ")),
			"the access token grants no use of the vault", "Ask for the scope vault:read (reading) or vault:write (reading and writing).")
		return nil
	}
	if !got.CanWrite() {
		return r.WithContext(access.WithReadOnly(r.Context(), readOnlyScope))
	}
	return r
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

// challenge refuses a request for its token, with the challenge that
// tells an OAuth client what to do.
func (h *Server) challenge(w http.ResponseWriter, r *http.Request, status int, challenge, msg, details string) {
	if h.envelopeRefusal(w, r) {
		envelope.Write(w, envelope.AuthRequired(h.opts.Version, h.opts.GitSHA))
		return
	}
	w.Header().Set("WWW-Authenticate", challenge)
	code := "UNAUTHORIZED"
	if status == http.StatusForbidden {
		code = "INSUFFICIENT_SCOPE"
	}
	mcphttp.Refuse(w, status, code, msg, details)
}
