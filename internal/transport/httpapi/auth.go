package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/historypage"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/envelope"
)

// authorize lets a request through with what its credentials allow, or
// refuses it (nil): from the headers alone, before any body is read.
func (h *Server) authorize(w http.ResponseWriter, r *http.Request) *http.Request {
	if historypage.Is(r) && r.URL.Path == historypage.Path {
		return r // the page holds no data: its calls carry the key
	}
	o := h.opts.OAuth
	if o == nil {
		if ok, presented := h.opts.Key.Allows(r); !ok {
			h.refuseKey(w, r, presented)
			return nil
		}
		if h.opts.Key.Set() {
			return r.WithContext(auth.As(r.Context(), "the API key"))
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
