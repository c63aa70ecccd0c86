// Package httpapi serves the tools over HTTP: MCP at /mcp (Streamable
// HTTP, and HTTP+SSE with /mcp/message, package mcphttp, through the
// protocol core, as every face) and the Bridge Protocol v1 under
// /bridge/v1 (package bridgev1), behind the protections a server that
// can change someone's notes needs: loopback-only by default, an API key,
// DNS-rebinding and drive-by checks on Host and Origin, bounded bodies, a
// cap on concurrent calls, per-request deadlines, access logs, and a
// graceful shutdown that lets calls in flight finish.
//
// It knows nothing of tools or Obsidian: it is given a protocol core.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/bearer"
	"github.com/obsidian-mcp/obsidian-mcp/internal/historypage"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/bridgev1"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/envelope"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// Options configure a Server.
type Options struct {
	// Key, when set, is required on every request (or, with OAuth, an
	// access token).
	Key Key
	// OAuth, when set, makes the face an OAuth resource server; its
	// requests must then come over HTTPS (secure).
	OAuth *bearer.Verifier
	// TrustedProxies are the reverse proxies whose X-Forwarded-Proto is
	// believed (--behind-proxy).
	TrustedProxies []netip.Prefix
	// Guard is the server's: a call it refuses for an OAuth client's
	// grant alone is answered with a scope challenge (step-up).
	Guard auth.Guard
	// AuthServer, when set, is the built-in authorization server, served
	// at AuthPaths (exact paths, and prefixes ending in '/') with no token.
	AuthServer http.Handler
	AuthPaths  []string
	// AllowedHosts are Host names accepted besides the loopback ones.
	AllowedHosts []string
	// CORSOrigins are browser origins allowed besides loopback ones; "*"
	// allows any.
	CORSOrigins []string
	// MaxBody bounds a request body (default 4 MiB).
	MaxBody int64
	// MaxConcurrent bounds the requests served at once (default 32); more
	// wait, until their deadline.
	MaxConcurrent int
	// CallTimeout bounds one request (0: none). Streams (GET) are not
	// bounded.
	CallTimeout time.Duration
	// BodyTimeout bounds the reading of a request's body (default 30 s).
	BodyTimeout time.Duration
	// MaxStreams bounds the SSE streams open at once (default 16).
	MaxStreams int
	// WriteMargin is how long past CallTimeout an answer may take to be
	// written (default 5 s), so that a client that stops reading frees
	// its slot.
	WriteMargin time.Duration
	Logger      *slog.Logger
	// Version is the server's version, for health answers.
	Version string
	// GitSHA is the commit the binary was built from, if known.
	GitSHA string
	// Confirm, Health and PolicyLoaded serve the envelope API (package
	// envelope).
	Confirm      func(tool string, args map[string]any) bool
	Health       func(ctx context.Context) (status, why string)
	PolicyLoaded func(ctx context.Context) bool
}

const (
	defaultMaxBody       = 4 << 20
	defaultMaxConcurrent = 32
)

// Server is the HTTP face of one MCP server.
type Server struct {
	opts     Options
	caller   *protocol.Caller
	endpoint *mcphttp.Endpoint
	slots    chan struct{}
	logger   *slog.Logger
	active   atomic.Int64
	// waiting counts the requests waiting for a slot.
	waiting atomic.Int64
	started time.Time
	// stopping is closed when Serve begins to stop.
	stopping chan struct{}
}

// New serves core.
func New(core *protocol.Core, opts Options) (*Server, error) {
	if opts.MaxBody <= 0 {
		opts.MaxBody = defaultMaxBody
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = defaultMaxConcurrent
	}
	if opts.WriteMargin <= 0 {
		opts.WriteMargin = 5 * time.Second
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 30 * time.Second
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = 16
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Server{opts: opts, caller: &protocol.Caller{Server: core.Server()}, slots: make(chan struct{}, opts.MaxConcurrent), logger: opts.Logger, started: time.Now(),
		stopping: make(chan struct{})}
	// Host, Origin, the key and the body's size are checked for every
	// endpoint here (guard) before the endpoint sees a request. Sessions
	// are issued on initialize and checked; a request without one is
	// served on the shared session, as the ObsiScripta stdio bridge sends
	// them.
	ep, err := mcphttp.New(mcphttp.CorePeer{Core: core}, mcphttp.Options{
		Logger:       opts.Logger,
		Name:         "serve",
		MessagePath:  "/mcp/message",
		MaxRequest:   opts.MaxBody,
		MaxBatch:     core.MaxBatch(),
		PingInterval: 30 * time.Second,
		SessionIdle:  time.Hour,
		Conns:        make(chan struct{}, opts.MaxStreams),
		ConnsSetting: "serve's stream limit",
		Screen: func(w http.ResponseWriter, r *http.Request, msgs []*mcphttp.Message) bool {
			return opts.OAuth != nil && opts.OAuth.StepUp(w, r, opts.Guard, msgs)
		},
	})
	if err != nil {
		return nil, err
	}
	h.endpoint = ep
	return h, nil
}

// Handler is every endpoint, behind the protections.
func (h *Server) Handler() http.Handler {
	env := h.envelope()
	mux := http.NewServeMux()
	// /mcp is MCP (Streamable HTTP, and HTTP+SSE with /mcp/message), and
	// the envelope API for a body that is not JSON-RPC (the guard has read
	// it already).
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && isEnvelope(r) {
			env.ServeHTTP(w, r)
			return
		}
		h.endpoint.ServeHTTP(w, r)
	}))
	mux.Handle("/mcp/message", h.endpoint)
	mux.Handle("/v1/mcp", env)
	mux.HandleFunc("/health", env.ServeHealth)
	mux.HandleFunc("/v1/health", env.ServeHealth)
	mux.Handle(bridgev1.Prefix+"/", &bridgev1.Handler{Caller: h.caller, Version: h.opts.Version})
	mux.HandleFunc("GET "+historypage.Path, historypage.Serve)
	for _, p := range h.opts.AuthPaths {
		mux.Handle(p, h.opts.AuthServer)
	}
	if h.opts.OAuth != nil {
		for _, p := range h.opts.OAuth.Resource.MetadataPaths() {
			mux.HandleFunc("GET "+p, h.opts.OAuth.Resource.ServeMetadata)
		}
	}
	return h.accessLog(h.guard(mux))
}

func (h *Server) envelope() *envelope.Handler {
	return &envelope.Handler{
		Caller:       h.caller,
		Version:      h.opts.Version,
		GitSHA:       h.opts.GitSHA,
		Confirm:      h.opts.Confirm,
		Health:       h.opts.Health,
		PolicyLoaded: h.opts.PolicyLoaded,
		Strict:       h.opts.Key.Set() && !slices.Contains(h.opts.CORSOrigins, "*"),
		Started:      h.started,
	}
}

// envelopePaths are the envelope API's own paths: a request refused there
// is answered with an envelope (HTTP 200), as the contract says.
var envelopePaths = map[string]bool{"/v1/mcp": true, "/health": true, "/v1/health": true}

// isEnvelope reports whether a request is for the envelope API: on its
// paths, or a POST to /mcp whose body is not JSON-RPC.
func isEnvelope(r *http.Request) bool {
	if envelopePaths[r.URL.Path] {
		return true
	}
	if r.URL.Path != "/mcp" || r.Method != http.MethodPost {
		return false
	}
	body, ok := r.Body.(*bodyBuffer)
	return ok && envelope.IsEnvelope(body.data)
}

// Serve answers on ln until ctx ends, then stops taking requests, ends the
// listening streams, and waits up to grace for the calls in flight.
func (h *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(h.logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	h.logger.Info("stopping: finishing the calls in flight", "in_flight", h.active.Load(), "refused_waiting", h.waiting.Load())
	// Requests still waiting for a slot are refused rather than started.
	close(h.stopping)
	stopCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	srv.SetKeepAlivesEnabled(false)
	// Streams (GET) never end by themselves: end them first, so that
	// Shutdown waits only for calls.
	h.endpoint.Stop()
	defer h.endpoint.Close()
	err := srv.Shutdown(stopCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		h.logger.Warn("calls still running after the grace period; closing them", "grace", grace)
		err = srv.Close()
	}
	if e := <-done; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}
