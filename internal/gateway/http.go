package gateway

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/historypage"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// Handler is the API listener: /mcp/{namespace} (SSE, POST …/message, and
// MCP Streamable HTTP), /health and /health/{namespace}, behind Host
// validation, CORS and the limits.
func (g *Gateway) Handler() http.Handler {
	return g.accessLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		a := keyed
		authServer := g.authServerPath(path)
		if g.oauthOn() && (strings.HasPrefix(path, "/mcp/") || strings.HasPrefix(path, metadataPrefix+"/") || authServer) {
			a = open // a namespace checks its own tokens (serveMCP)
		}
		page := historypage.Is(r) && path != historypage.Path
		if page {
			a = open // the page holds no data: its calls carry the key
		}
		if !g.guard(w, r, a) {
			return
		}
		if g.oauthOn() && a == open && g.insecure(w, r) {
			return
		}
		switch {
		case page:
			if g.spaces[strings.TrimPrefix(path, historypage.Path+"/")] == nil {
				g.refuse(w, http.StatusNotFound, "NAMESPACE_NOT_FOUND", "no namespace "+quoteName(strings.TrimPrefix(path, historypage.Path+"/")), "The namespaces are: "+strings.Join(g.Namespaces(), ", ")+" (names are case-sensitive).")
				return
			}
			historypage.Serve(w, r)
		case authServer:
			g.opts.AuthServer.ServeHTTP(w, r)
		case strings.HasPrefix(path, metadataPrefix+"/"):
			g.serveMetadata(w, r)
		case path == "/health" || path == "/health/":
			writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
		case strings.HasPrefix(path, "/health/"):
			ns := g.spaces[strings.SplitN(strings.TrimPrefix(path, "/health/"), "/", 2)[0]]
			if ns == nil {
				g.refuse(w, http.StatusNotFound, "NAMESPACE_NOT_FOUND", "no namespace "+quoteName(path[len("/health/"):]), "The namespaces are: "+strings.Join(g.Namespaces(), ", ")+" (names are case-sensitive).")
				return
			}
			writeJSON(w, http.StatusOK, ns.peer.health())
		case strings.HasPrefix(path, "/mcp/") && g.isStopping():
			w.Header().Set("Connection", "close")
			g.refuse(w, http.StatusServiceUnavailable, "STOPPING", "the gateway is stopping", "Try again once it is back.")
		case strings.HasPrefix(path, "/mcp/"):
			g.serveMCP(w, r, strings.Split(strings.TrimPrefix(path, "/mcp/"), "/"))
		default:
			g.refuse(w, http.StatusNotFound, "NOT_FOUND", "nothing is served at "+path, "The endpoints are /mcp/{namespace}, /mcp/{namespace}/message, /health and /health/{namespace}.")
		}
	}))
}

func quoteName(s string) string { return fmt.Sprintf("%q", strings.SplitN(s, "/", 2)[0]) }

// serveMCP routes /mcp/{namespace}[/…] to the namespace's endpoint: the
// first segment is the namespace, and only …/message means something
// after it.
func (g *Gateway) serveMCP(w http.ResponseWriter, r *http.Request, segs []string) {
	ns := g.spaces[segs[0]]
	if ns == nil {
		g.refuse(w, http.StatusNotFound, "NAMESPACE_NOT_FOUND", "no namespace "+fmt.Sprintf("%q", segs[0]), "The namespaces are: "+strings.Join(g.Namespaces(), ", ")+" (names are case-sensitive).")
		return
	}
	switch {
	case ns.oauth != nil:
		var refused *bearer.Refusal
		if r, refused = ns.oauth.Authorize(r, g.opts.Key, g.logger); refused != nil {
			refused.Write(w)
			return
		}
	case g.opts.Key.Set():
		// The key was checked (guard): the change record names it as the
		// client's credentials, as serve does.
		r = r.WithContext(auth.As(r.Context(), "the API key"))
	}
	ns.endpoint.ServeHTTP(w, r)
}

// allowMethods and allowHeaders are the CORS answer: the contract's, plus
// what MCP Streamable HTTP clients send.
const (
	allowMethods = "GET, POST, DELETE, OPTIONS"
	allowHeaders = "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
)

// need is what a request must show besides its Host and Origin.
type need int

const (
	// keyed: the API key, when one is set.
	keyed need = iota
	// keyedOrPass: the key, or the dashboard's pass (debug listener).
	keyedOrPass
	// open: nothing; a page that holds no data.
	open
)

// guard checks Host and Origin, puts the CORS headers on every answer,
// answers OPTIONS, and asks for what a says (the API key, from the headers
// alone, before any body is read). It reports whether the request may go
// on.
func (g *Gateway) guard(w http.ResponseWriter, r *http.Request, a need) bool {
	h := w.Header()
	origin := r.Header.Get("Origin")
	// Pages served from this machine (a local web UI such as llama.cpp's)
	// too, as `obsidian-mcp serve` allows them.
	originOK := origin == "" || httpapi.OriginAllowed(origin, g.cfg.AllowedOrigins) || httpapi.SameHost(origin, r.Host)
	switch {
	case origin != "" && originOK:
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
	case slices.Contains(g.cfg.AllowedOrigins, "*"):
		h.Set("Access-Control-Allow-Origin", "*")
	case len(g.cfg.AllowedOrigins) > 0:
		h.Set("Access-Control-Allow-Origin", g.cfg.AllowedOrigins[0])
		h.Add("Vary", "Origin")
	}
	h.Set("Access-Control-Allow-Methods", allowMethods)
	h.Set("Access-Control-Allow-Headers", allowHeaders)
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	if !g.hostAllowed(r.Host) {
		g.refuse(w, http.StatusForbidden, "FORBIDDEN_HOST", fmt.Sprintf("the Host %q is not one this gateway answers to", r.Host), "Use one of "+strings.Join(g.cfg.AllowedHosts, ", ")+", or add the name to allowed_hosts.")
		return false
	}
	if !originOK {
		h.Del("Access-Control-Allow-Origin")
		g.refuse(w, http.StatusForbidden, "FORBIDDEN_ORIGIN", "requests from the web page at "+origin+" are not allowed", "Add the origin to allowed_origins if that page should reach these servers.")
		return false
	}
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusOK)
		return false
	}
	if a == open {
		return true
	}
	if ok, presented := g.opts.Key.Allows(r); !ok && (a != keyedOrPass || !g.passed(r)) {
		httpapi.RefuseKey(w, presented, "obsidian-mcp gateway")
		return false
	}
	return true
}

// passCookie carries the dashboard's pass (Gateway.pass).
const passCookie = "obsidian_mcp_gateway"

// passed reports whether r carries the dashboard's pass.
func (g *Gateway) passed(r *http.Request) bool {
	c, err := r.Cookie(passCookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(g.pass)) == 1
}

// hostAllowed accepts the names in allowed_hosts, with any port.
func (g *Gateway) hostAllowed(host string) bool {
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.ToLower(strings.Trim(name, "[]"))
	for _, h := range g.cfg.AllowedHosts {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

func (g *Gateway) refuse(w http.ResponseWriter, status int, code, msg, details string) {
	mcphttp.Refuse(w, status, code, msg, details)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// accessLog logs a line per request: method, path, status, duration.
func (g *Gateway) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := httpapi.NewRecorder(w)
		next.ServeHTTP(rec, r)
		level := g.logger.Debug
		if rec.Status >= 500 {
			level = g.logger.Warn
		} else if rec.Status >= 400 {
			level = g.logger.Info
		}
		level("http", "method", r.Method, "path", r.URL.Path, "status", rec.Status, "duration", time.Since(start), "remote", r.RemoteAddr)
	})
}
