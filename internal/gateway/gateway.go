package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// A peer serves the JSON-RPC of one namespace: a vault's MCP server in
// this process, or a stdio MCP server run as a subprocess. Transports hand
// it messages; it never knows which transport a message came by.
type peer interface {
	// attach starts serving a new session; detach ends it.
	attach(s *session) error
	detach(s *session)
	// send takes one message from a session's client. reply receives the
	// answer to a request, exactly once, even when the call fails or ctx
	// ends (nil: the request was cancelled and gets no answer); for
	// anything else it is not called. Messages the server sends
	// of its own accord go to s.ns.notify.
	send(ctx context.Context, s *session, m *message, reply func([]byte))
	// health is the namespace's line in /health/{ns}.
	health() Health
	// drain waits, until ctx ends, for the calls in flight to be
	// answered; close then ends everything the peer runs.
	drain(ctx context.Context)
	close()
}

// Health is a namespace's state, as /health/{ns} gives it.
type Health struct {
	Namespace string `json:"namespace"`
	Status    string `json:"status"`
	PID       int    `json:"pid,omitempty"`
}

// namespace is one configured namespace and its sessions.
type namespace struct {
	name   string
	peer   peer
	gw     *Gateway
	shared *session

	mu       sync.Mutex
	sessions map[string]*session
}

// Options are what the gateway is given besides its configuration.
type Options struct {
	Logger  *slog.Logger
	Version string
	// OpenVault serves a vault namespace in this process.
	OpenVault func(ns Namespace) (*Vault, error)
	// Grace bounds how long calls in flight may finish at stop (default 10 s).
	Grace time.Duration
	// Backoff paces the restarts of command namespaces' processes
	// (default DefaultBackoff).
	Backoff Backoff
}

func (o Options) backoff() Backoff {
	if o.Backoff.Initial <= 0 || o.Backoff.Max <= 0 {
		return DefaultBackoff
	}
	return o.Backoff
}

// Gateway serves every namespace of a Config.
type Gateway struct {
	cfg    *Config
	opts   Options
	logger *slog.Logger
	spaces map[string]*namespace
	order  []*namespace
	// conns holds a token per open SSE stream (limits.max_connections).
	conns chan struct{}
	mon   *monitor
	// streams are the open SSE streams, ended first at stop.
	mu      sync.Mutex
	streams map[*stream]struct{}
	stopped bool
}

// New opens every namespace. On error, what was opened is closed again.
func New(cfg *Config, opts Options) (*Gateway, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	g := &Gateway{cfg: cfg, opts: opts, logger: opts.Logger, spaces: map[string]*namespace{},
		conns: make(chan struct{}, cfg.Limits.MaxConnections), mon: newMonitor(), streams: map[*stream]struct{}{}}
	for _, n := range cfg.Namespaces {
		ns := &namespace{name: n.Name, gw: g, sessions: map[string]*session{}}
		var err error
		if n.IsVault() {
			if opts.OpenVault == nil {
				err = errors.New("vault namespaces are not served by this build")
			} else {
				var v *Vault
				if v, err = opts.OpenVault(n); err == nil {
					ns.peer = newVaultPeer(n.Name, v, g.logger)
				}
			}
		} else {
			ns.peer = newProcessPeer(n, opts.Version, opts.backoff(), int(cfg.Limits.MaxResponse), g.logger)
		}
		if err != nil {
			g.stopPeers()
			return nil, fmt.Errorf("namespace %q (line %d): %w", n.Name, n.Line, err)
		}
		g.spaces[n.Name] = ns
		g.order = append(g.order, ns)
		ns.shared = ns.newSession("shared", false)
		ns.shared.shared = true
		if err := ns.peer.attach(ns.shared); err != nil {
			g.stopPeers()
			return nil, fmt.Errorf("namespace %q: %w", n.Name, err)
		}
	}
	return g, nil
}

// newSession makes a session (not yet attached to the peer).
func (ns *namespace) newSession(id string, legacy bool) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{id: id, ns: ns, legacy: legacy, ctx: ctx, cancel: cancel, streams: map[*stream]struct{}{}, used: time.Now()}
}

// open makes, attaches and records a session: id "" gets a fresh one. It
// fails with errDuplicate when the id is taken.
func (ns *namespace) open(id string, legacy bool) (*session, error) {
	if id == "" {
		id = newSessionID()
	}
	ns.sweep()
	ns.mu.Lock()
	if _, taken := ns.sessions[id]; taken || id == ns.shared.id {
		ns.mu.Unlock()
		return nil, errDuplicate
	}
	s := ns.newSession(id, legacy)
	ns.sessions[id] = s
	ns.mu.Unlock()
	if err := ns.peer.attach(s); err != nil {
		ns.mu.Lock()
		delete(ns.sessions, id)
		ns.mu.Unlock()
		return nil, err
	}
	return s, nil
}

var errDuplicate = errors.New("duplicate session")

// lookup finds an open session.
func (ns *namespace) lookup(id string) *session {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return ns.sessions[id]
}

// end closes a session: its streams end, its calls are cancelled.
func (ns *namespace) end(s *session) {
	ns.mu.Lock()
	if ns.sessions[s.id] == s {
		delete(ns.sessions, s.id)
	}
	ns.mu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for st := range s.streams {
		if st == s.own {
			st.kill("the session ended")
		}
	}
	s.mu.Unlock()
	s.cancel()
	ns.peer.detach(s)
}

// sessionIdle is how long a Streamable HTTP session may go unused, with
// no stream open, before it is forgotten (a client gone without DELETE).
const sessionIdle = time.Hour

func (ns *namespace) sweep() {
	now := time.Now()
	var gone []*session
	ns.mu.Lock()
	for _, s := range ns.sessions {
		if s.idle(now, sessionIdle) {
			gone = append(gone, s)
		}
	}
	ns.mu.Unlock()
	for _, s := range gone {
		ns.end(s)
	}
}

// notify sends a message the server sent of its own accord (a
// notification) to a session's client.
func (ns *namespace) notify(s *session, msg []byte) {
	ns.gw.out(s, msg)
}

// out delivers a message for a session on its streams, within the answer
// limit, and shows it on the dashboard.
func (g *Gateway) out(s *session, msg []byte) {
	msg = g.bounded(msg)
	if msg == nil {
		return
	}
	g.mon.message("out", s.ns.name, s.id, msg)
	if s.deliver(event{name: "message", data: msg}) == 0 {
		g.logger.Debug("no stream to take a message; dropped", "namespace", s.ns.name, "session", s.id)
	}
}

// bounded is msg, or, for an answer over limits.max_response, an error
// answer saying so; a notification over the limit is dropped (nil).
func (g *Gateway) bounded(msg []byte) []byte {
	if int64(len(msg)) <= g.cfg.Limits.MaxResponse {
		return msg
	}
	id := responseID(msg)
	g.logger.Warn("an answer is over limits.max_response", "bytes", len(msg), "limit", g.cfg.Limits.MaxResponse, "answer", id != nil)
	if id == nil {
		return nil
	}
	return limitResponse(id, len(msg), g.cfg.Limits.MaxResponse)
}

// limitResponse is the error answer to id for an answer of size bytes (-1:
// more than was kept) over limits.max_response. Its data says so, for
// clients and for a POST's status (500).
func limitResponse(id json.RawMessage, size int, limit int64) []byte {
	what := fmt.Sprintf("is %d bytes", size)
	if size < 0 {
		what = fmt.Sprintf("is over %d bytes", limit)
	}
	msg := fmt.Sprintf("the answer %s, over the gateway's limit of %d (limits.max_response): ask for less, or raise the limit", what, limit)
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": -32603, "message": msg, "data": map[string]any{"limit": "max_response", "max_bytes": limit}}})
	return out
}

// isLimitResponse reports whether answer is a limitResponse.
func isLimitResponse(answer []byte) bool {
	if !bytes.Contains(answer, []byte(`"max_response"`)) {
		return false
	}
	var a struct {
		Error *struct {
			Data struct{ Limit string } `json:"data"`
		} `json:"error"`
	}
	return json.Unmarshal(answer, &a) == nil && a.Error != nil && a.Error.Data.Limit == "max_response"
}

// Serve answers the API on ln (and the dashboard on debug, when not nil)
// until ctx ends; then streams are ended, calls in flight finish (within
// Grace), and every namespace stops.
func (g *Gateway) Serve(ctx context.Context, ln, debug net.Listener) error {
	servers := []*http.Server{g.httpServer(ctx, g.Handler())}
	lns := []net.Listener{ln}
	if debug != nil {
		servers = append(servers, g.httpServer(ctx, g.DebugHandler()))
		lns = append(lns, debug)
	}
	done := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { done <- srv.Serve(lns[i]) }()
	}
	pings := time.NewTicker(g.cfg.PingInterval)
	defer pings.Stop()
	var err error
	for running := true; running; {
		select {
		case err = <-done:
			running = false
		case <-ctx.Done():
			running = false
		case <-pings.C:
			g.mon.ping()
		}
	}
	g.shutdown(servers)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (g *Gateway) httpServer(ctx context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(g.logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
}

// shutdown stops taking requests, lets the calls in flight finish within
// the grace period (their answers still reach the streams), then ends
// every stream and stops the namespaces.
func (g *Gateway) shutdown(servers []*http.Server) {
	g.logger.Info("stopping: finishing the calls in flight")
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), g.opts.Grace)
	defer cancel()
	var wg sync.WaitGroup
	for _, ns := range g.order {
		wg.Go(func() { ns.peer.drain(ctx) })
	}
	wg.Wait()
	g.mu.Lock()
	for st := range g.streams {
		st.kill("the gateway is stopping")
	}
	g.mu.Unlock()
	g.mon.stop()
	for _, srv := range servers {
		wg.Go(func() {
			srv.SetKeepAlivesEnabled(false)
			if err := srv.Shutdown(ctx); err != nil {
				g.logger.Warn("requests still running after the grace period; closing them", "grace", g.opts.Grace)
				_ = srv.Close()
			}
		})
	}
	wg.Wait()
	g.stopPeers()
}

// Close stops the namespaces of a gateway that never served.
func (g *Gateway) Close() error {
	g.stopPeers()
	return nil
}

// isStopping reports whether the gateway has begun to stop.
func (g *Gateway) isStopping() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopped
}

// stopPeers ends every session and stops every namespace opened.
func (g *Gateway) stopPeers() {
	var wg sync.WaitGroup
	for _, ns := range g.order {
		ns.mu.Lock()
		open := make([]*session, 0, len(ns.sessions))
		for _, s := range ns.sessions {
			open = append(open, s)
		}
		ns.mu.Unlock()
		for _, s := range open {
			ns.end(s)
		}
		if ns.shared != nil && ns.shared.state != nil {
			ns.shared.cancel()
			ns.peer.detach(ns.shared)
		}
		wg.Go(ns.peer.close)
	}
	wg.Wait()
}

// Namespaces are the names served, in the file's order.
func (g *Gateway) Namespaces() []string {
	names := make([]string, len(g.order))
	for i, ns := range g.order {
		names[i] = ns.name
	}
	return names
}
