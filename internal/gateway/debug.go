package gateway

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// dashboard is the /debug page: one file, no external assets, so that it
// works offline.
//
//go:embed debug.html
var dashboard []byte

// DebugHandler is the debug listener: /debug (the dashboard page),
// /debug/state (JSON) and /debug/stream (SSE: message, connection, ping),
// behind the same Host, Origin and key checks as the API. With a key, the
// page (which holds no data) asks for it and posts it to /debug/login,
// which answers with a cookie for the rest: a browser's EventSource
// cannot send a header.
func (g *Gateway) DebugHandler() http.Handler {
	return g.accessLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := keyedOrPass
		switch r.URL.Path {
		case "/debug", "/debug/":
			a = open
		case "/debug/login":
			a = keyed
		}
		o := g.debugOAuth
		metadata := o != nil && r.Method == http.MethodGet && slices.Contains(o.Resource.MetadataPaths(), r.URL.Path)
		byToken := o != nil && a == keyedOrPass && !g.passed(r)
		if metadata || byToken {
			a = open // the metadata holds no data; a token is checked below
		}
		if !g.guard(w, r, a) {
			return
		}
		if metadata {
			o.Resource.ServeMetadata(w, r)
			return
		}
		if byToken {
			// The dashboard's data with OAuth: the key, or a token for
			// the dashboard's resource (a script's, a monitor's), which
			// must not cross the network in the clear.
			if g.insecure(w, r) {
				return
			}
			var refused *bearer.Refusal
			if r, refused = o.Authorize(r, g.opts.Key, g.logger); refused != nil {
				refused.Write(w)
				return
			}
		}
		switch r.URL.Path {
		case "/debug/login":
			// Reached with the key (the guard checked it): the pass.
			if r.Method != http.MethodPost {
				g.refuse(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "/debug/login takes POST", "The dashboard page posts the key there.")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: passCookie, Value: g.pass, Path: "/debug", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			w.WriteHeader(http.StatusNoContent)
		case "/debug", "/debug/":
			h := w.Header()
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Cache-Control", "no-store")
			// Nothing but this page's own inline code and this origin.
			h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
			_, _ = w.Write(dashboard)
		case "/debug/state":
			writeJSON(w, http.StatusOK, g.State())
		case "/debug/stream":
			g.debugStream(w, r)
		default:
			g.refuse(w, http.StatusNotFound, "NOT_FOUND", "nothing is served at "+r.URL.Path, "The debug endpoints are /debug, /debug/state, /debug/stream and /debug/login.")
		}
	}))
}

// State is the gateway as the dashboard shows it.
type State struct {
	Time time.Time `json:"time"`
	// Seq is how many messages the counts include.
	Seq         int64            `json:"seq"`
	Namespaces  []NamespaceState `json:"namespaces"`
	Connections []Connection     `json:"connections"`
	// Recent are the last message events (as /debug/stream sends them,
	// each message at most 4 KB), oldest first: the page shows them when
	// it opens.
	Recent []json.RawMessage `json:"recent"`
}

// NamespaceState is one namespace: its process (if any), sessions and
// message counts.
type NamespaceState struct {
	Health
	Kind     string   `json:"kind"`
	Sessions []string `json:"sessions"`
	Counts   Counts   `json:"messages"`
	// Process is a command namespace's subprocess.
	Process *Process `json:"process,omitempty"`
}

// State is a snapshot of every namespace, session and open stream.
func (g *Gateway) State() State {
	counts, conns, seq := g.mon.snapshot()
	slices.SortFunc(conns, func(a, b Connection) int { return a.Since.Compare(b.Since) })
	st := State{Time: time.Now().UTC(), Seq: seq, Connections: conns, Recent: g.mon.history()}
	for _, ns := range g.order {
		ids := ns.endpoint.Sessions()
		slices.Sort(ids)
		n := NamespaceState{Health: ns.peer.health(), Kind: "vault", Sessions: ids, Counts: counts[ns.name]}
		if pp, ok := ns.peer.(*commandPeer); ok {
			pr := pp.process()
			n.Kind, n.Process = "command", &pr
		}
		st.Namespaces = append(st.Namespaces, n)
	}
	return st
}

// debugStream is /debug/stream: every message both ways, streams coming
// and going, and pings. Watchers do not count as connections.
func (g *Gateway) debugStream(w http.ResponseWriter, r *http.Request) {
	st := mcphttp.NewStream(g.logger, 0)
	if !g.mon.watch(st) {
		g.refuse(w, http.StatusServiceUnavailable, "STOPPING", "the gateway is stopping", "")
		return
	}
	defer g.mon.unwatch(st)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	// As for the API's streams: a watcher that stops reading is cut off.
	st.OnKill(func() { _ = rc.SetWriteDeadline(time.Now()) })
	for {
		select {
		case <-r.Context().Done():
			return
		case <-st.Done():
			return
		case ev := <-st.Events():
			st.Sent(ev)
			_ = rc.SetWriteDeadline(time.Now().Add(mcphttp.DefaultWriteTimeout))
			if _, err := w.Write(mcphttp.EncodeEvent(ev)); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}
