// Package historypage is the page a person opens after an assistant's
// session to see what the tools changed and put it back: GET /history on
// serve, GET /history/<namespace> on the gateway. It holds no data: its
// script calls obsidian_history and obsidian_undo over MCP (at /mcp, or
// /mcp/<namespace>) with the key or token the person types, so every
// change it shows and every undo it makes passes the same checks as any
// other call, and a token that may only read sees the changes but cannot
// undo.
package historypage

import (
	_ "embed"
	"net/http"
	"strings"
)

//go:embed page.html
var page []byte

// Path is the page's path on serve; the gateway serves it under it, one
// per namespace.
const Path = "/history"

// Is reports whether a request is for the page (a GET of Path, or of a
// namespace's under it): it is served without a key, as it holds none of
// the vault.
func Is(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Path)
	return ok && (rest == "" || strings.Count(rest, "/") == 1 && len(rest) > 1)
}

// Serve writes the page.
func Serve(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Its own inline script and style, and calls to this server alone.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(page)
}
