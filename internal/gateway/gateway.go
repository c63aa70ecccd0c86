package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// A peer serves the JSON-RPC of one namespace: a vault's MCP server in
// this process (vaultPeer), or a stdio MCP server run as a subprocess
// (commandPeer). The namespace's endpoint (package mcphttp) hands it
// messages; it never knows which transport a message came by.
type peer interface {
	mcphttp.Peer
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

// namespace is one configured namespace: its peer and its endpoint.
type namespace struct {
	name     string
	peer     peer
	endpoint *mcphttp.Endpoint
	// oauth, with an issuer configured, is the namespace as an OAuth
	// resource server (set by Serve, which knows the address).
	oauth *bearer.Verifier
	// guard is what the namespace's server refuses a request, which the
	// scope challenge asks.
	guard auth.Guard
}

// VaultServer is a vault namespace's MCP server, served in this process: the
// same server, tools, policy and error contract as `obsidian-mcp` on
// stdio, through the same protocol core, with no subprocess.
type VaultServer struct {
	// Core dispatches to the vault's server; its options bound the calls
	// (workers, per-call timeout).
	Core *protocol.Core
	// Close releases the vault (its index, its watcher).
	Close func()
	// Guard is the vault server's: a call it refuses for a token's grant
	// alone gets the scope challenge (bearer.Verifier.StepUp).
	Guard auth.Guard
}

// vaultPeer serves a vault namespace through its protocol core.
type vaultPeer struct {
	mcphttp.CorePeer
	name string
	v    *VaultServer
}

func (p *vaultPeer) health() Health            { return Health{Namespace: p.name, Status: "running"} }
func (p *vaultPeer) drain(ctx context.Context) { p.v.Core.Wait(ctx) }
func (p *vaultPeer) close() {
	if p.v.Close != nil {
		p.v.Close()
	}
}

// Options are what the gateway is given besides its configuration.
type Options struct {
	Logger  *slog.Logger
	Version string
	// OpenVault serves a vault namespace in this process.
	OpenVault func(ns Namespace) (*VaultServer, error)
	// Grace bounds how long calls in flight may finish at stop (default 10 s).
	Grace time.Duration
	// Backoff paces the restarts of command namespaces' processes
	// (default DefaultBackoff).
	Backoff Backoff
	// Key, when set, is required on every request to both listeners
	// (the dashboard's page asks for it once: see DebugHandler).
	Key httpapi.Key
	// Tokens, with cfg.OAuth's issuer or built_in, checks the access
	// tokens of the namespace whose resource URL it is given.
	Tokens func(resource string) bearer.TokenChecker
	// AuthServer, with oauth.built_in, is the authorization server,
	// served on the API listener at AuthPaths (exact paths, and prefixes
	// ending in '/') with no token.
	AuthServer http.Handler
	AuthPaths  []string
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
	// pass is the dashboard's cookie once its page was given the key: a
	// random value of this run, so that the key itself is never stored
	// in the browser.
	pass string
	// debugOAuth, with OAuth on, is the dashboard's data as a resource
	// (set by Serve, which knows the address).
	debugOAuth *bearer.Verifier
	mu         sync.Mutex
	stopped    bool
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
		conns: make(chan struct{}, cfg.Limits.MaxConnections), mon: newMonitor(), pass: rand.Text()}
	for _, n := range cfg.Namespaces {
		ns := &namespace{name: n.Name}
		var err error
		if n.IsVault() {
			if opts.OpenVault == nil {
				err = errors.New("vault namespaces are not served by this build")
			} else {
				var v *VaultServer
				if v, err = opts.OpenVault(n); err == nil {
					ns.peer = &vaultPeer{CorePeer: mcphttp.CorePeer{Core: v.Core}, name: n.Name, v: v}
					ns.guard = v.Guard
				}
			}
		} else {
			// Another server's tools are its own: none can be vouched
			// for as changing nothing.
			ns.guard = auth.Guard{Writes: auth.Writing}
			ns.peer = newCommandPeer(ns.guard, n, opts.Version, opts.backoff(), int(cfg.Limits.MaxResponse), cfg.Limits.RequestTimeout, g.logger)
		}
		if err != nil {
			g.stopPeers()
			return nil, fmt.Errorf("namespace %q (line %d): %w", n.Name, n.Line, err)
		}
		ns.endpoint, err = mcphttp.New(ns.peer, mcphttp.Options{
			Logger:          g.logger,
			Name:            n.Name,
			MessagePath:     "/mcp/" + n.Name + "/message",
			MaxRequest:      cfg.Limits.MaxRequest,
			MaxResponse:     cfg.Limits.MaxResponse,
			MaxBatch:        cfg.Limits.MaxBatch,
			PingInterval:    cfg.PingInterval,
			Conns:           g.conns,
			ConnsSetting:    "limits.max_connections",
			MaxSessions:     cfg.Limits.MaxSessions,
			SessionsSetting: "limits.max_sessions",
			Monitor:         nsMonitor{g.mon, n.Name},
			Screen: func(w http.ResponseWriter, r *http.Request, msgs []*mcphttp.Message) bool {
				return ns.oauth != nil && ns.oauth.StepUp(w, r, ns.guard, msgs)
			},
		})
		if err != nil {
			ns.peer.close()
			g.stopPeers()
			return nil, fmt.Errorf("namespace %q: %w", n.Name, err)
		}
		g.spaces[n.Name] = ns
		g.order = append(g.order, ns)
	}
	return g, nil
}

// Serve answers the API on ln (and the dashboard on debug, when not nil)
// until ctx ends; then streams are ended, calls in flight finish (within
// Grace), and every namespace stops.
func (g *Gateway) Serve(ctx context.Context, ln, debug net.Listener) error {
	var debugAddr net.Addr
	if debug != nil {
		debugAddr = debug.Addr()
	}
	g.protect(ln.Addr(), debugAddr)
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
	for _, ns := range g.order {
		ns.endpoint.Stop()
	}
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
		ns.endpoint.Close()
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
