// Package bridge is `obsidian-mcp bridge`: a stdio MCP server whose tools
// are those of an HTTP server (the ObsiScripta plugin, or our own
// `obsidian-mcp serve`), reached through internal/bridge/upstream, as the stdio
// bridge contract describes (seeds/stdio-bridge-plan.ja.md).
//
// It waits for the server with back-off, lists its tools, then serves stdio
// through mcp-go and internal/wire (the stdio mends of the stdio server:
// answers drained at end of input, cancellations honoured), polling the
// tool list and replacing the set when its hash changes, so that the client
// gets one notifications/tools/list_changed per real change. A call goes to
// the server once: failures come back as isError results, never as a second
// attempt. Resources and prompts are forwarded when the server offers them
// over MCP.
package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge/upstream"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
)

// Upstream is the server's side of the bridge (upstream.Auto, MCP or V1).
type Upstream interface {
	Name() string
	Health(ctx context.Context) error
	Tools(ctx context.Context) ([]upstream.Tool, string, error)
	Call(ctx context.Context, name string, args json.RawMessage) (*upstream.Result, error)
}

// Forwarder carries requests other than tools: MCP only.
type Forwarder interface {
	Capabilities(ctx context.Context) (map[string]json.RawMessage, error)
	Request(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// DefaultCallTimeout bounds a call: serve's own bound with the default
// CLI timeout (2 × 30 s + 5 s) plus a margin for the HTTP round trip.
const DefaultCallTimeout = 70 * time.Second

// workers is how many calls are forwarded at once.
const workers = 8

// Backoff is the start-up wait: First, doubling up to Max, Attempts tries.
type Backoff struct {
	First, Max time.Duration
	Attempts   int
}

// DefaultBackoff is the contract's: 1 s doubling to 30 s, 30 attempts.
var DefaultBackoff = Backoff{First: time.Second, Max: 30 * time.Second, Attempts: 30}

// Options configure a Bridge.
type Options struct {
	// Name and Version are the bridge's in initialize.
	Name, Version string
	Logger        *slog.Logger
	// Poll is how often the tool list is asked for (default 5 s).
	Poll time.Duration
	// ListTimeout bounds health and listing requests (default 5 s).
	ListTimeout time.Duration
	// CallTimeout bounds a tool call: the server's own bound plus a margin.
	CallTimeout time.Duration
	Backoff     Backoff
	// Forwarder, when set, returns the transport for resources and
	// prompts while there is one (nil once on the Bridge Protocol v1).
	Forwarder func() Forwarder
	// Rediscover, when set, is asked when the server cannot be reached:
	// it looks again where the server is (--url-file) and reports whether
	// that changed.
	Rediscover func() bool
	// Target names the server in messages.
	Target func() string
}

// Bridge serves one server's tools over stdio.
type Bridge struct {
	up Upstream
	o  Options

	mu      sync.Mutex
	hash    string
	failing bool // the last poll failed; logged once per streak
	// prompts is the hash of the server's prompts, when it offers them.
	prompts string
	offers  map[string]json.RawMessage // the server's MCP capabilities

	s *server.MCPServer
}

// New returns a bridge to up.
func New(up Upstream, o Options) *Bridge {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Poll <= 0 {
		o.Poll = 5 * time.Second
	}
	if o.ListTimeout <= 0 {
		o.ListTimeout = 5 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Backoff.Attempts <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.Target == nil {
		o.Target = func() string { return "the server" }
	}
	return &Bridge{up: up, o: o}
}

// RefusedError is the server's answer that ends the start-up wait at once:
// a 4xx with a JSON or empty body says the request is wrong (a missing or
// wrong API key), not that the server is still starting.
type RefusedError struct{ Err *upstream.HTTPError }

// KeyFix says how to mend a refusal for want of the API key.
const KeyFix = "set OBSIDIAN_MCP_API_KEY to its API key (it goes with MCP over HTTP only; the Bridge Protocol v1 has no key, so use --transport mcp or auto)"

func (e *RefusedError) Error() string {
	msg := "the server refused the bridge (" + e.Err.Error() + ")"
	if e.Err.Status == http.StatusUnauthorized || e.Err.Status == http.StatusForbidden {
		msg += ": " + KeyFix
	}
	return msg
}

func (e *RefusedError) Unwrap() error { return e.Err }

// refused reports whether err ends the wait.
func refused(err error) *RefusedError {
	var he *upstream.HTTPError
	if errors.As(err, &he) && he.Status >= 400 && he.Status < 500 && he.JSON {
		return &RefusedError{he}
	}
	return nil
}

// Wait waits for the server to answer its health check and list its tools,
// with back-off; the tools listed are the first tool set.
func (b *Bridge) Wait(ctx context.Context) error {
	delay := b.o.Backoff.First
	var last error
	for attempt := 1; ; attempt++ {
		err := b.ready(ctx)
		if err == nil {
			return nil
		}
		if r := refused(err); r != nil {
			return r
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		last = err
		if attempt >= b.o.Backoff.Attempts {
			break
		}
		if b.o.Rediscover != nil && b.o.Rediscover() {
			b.o.Logger.Info("the server moved; trying its new address", "server", b.o.Target())
			delay = b.o.Backoff.First
			continue
		}
		b.o.Logger.Info("waiting for the server", "server", b.o.Target(), "attempt", attempt, "retry_in", delay, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, b.o.Backoff.Max)
	}
	return fmt.Errorf("%s did not answer after %d attempts: %w", b.o.Target(), b.o.Backoff.Attempts, last)
}

// ready checks health, then lists the tools.
func (b *Bridge) ready(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, b.o.ListTimeout)
	defer cancel()
	if err := b.up.Health(hctx); err != nil {
		return err
	}
	if _, err := b.Sync(ctx); err != nil {
		return err
	}
	return b.syncPrompts(ctx)
}

// Sync lists the server's tools and, when their hash changed, replaces the
// tool set (mcp-go then notifies initialized clients once). It reports
// whether the set changed.
func (b *Bridge) Sync(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.ListTimeout)
	defer cancel()
	tools, hash, err := b.up.Tools(ctx)
	if err != nil {
		return false, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if hash == b.hash && b.s != nil {
		return false, nil
	}
	set := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		st, err := b.proxy(t)
		if err != nil {
			b.o.Logger.Warn("a tool of the server is left out", "tool", t.Name, "err", err)
			continue
		}
		set = append(set, st)
	}
	first := b.s == nil
	if first {
		b.s = b.newServer(ctx)
	}
	b.hash = hash
	b.s.SetTools(set...)
	if !first {
		b.o.Logger.Info("the server's tools changed", "tools", len(set), "hash", hash)
	}
	return !first, nil
}

// poll syncs every Poll until ctx ends. A failing server keeps the last
// tool set; each streak of failures is logged once, and its end too.
func (b *Bridge) poll(ctx context.Context) {
	t := time.NewTicker(b.o.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := b.Sync(ctx)
		if err != nil && b.o.Rediscover != nil && b.o.Rediscover() {
			b.o.Logger.Info("the server moved; following it", "server", b.o.Target())
			_, err = b.Sync(ctx)
		}
		if err == nil {
			err = b.syncPrompts(ctx)
		}
		b.mu.Lock()
		was := b.failing
		b.failing = err != nil
		b.mu.Unlock()
		if ctx.Err() == nil {
			b.o.Logger.Debug("polled the server's tools", "server", b.o.Target(), "ok", err == nil)
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !was:
			b.o.Logger.Warn("the server's tools cannot be listed; serving the last ones", "server", b.o.Target(), "err", err)
		case err == nil && was:
			b.o.Logger.Info("the server answers again", "server", b.o.Target())
		}
	}
}

// Serve answers MCP over in and out until in ends or ctx is cancelled,
// after Wait. Every request read is answered before it returns.
func (b *Bridge) Serve(ctx context.Context, in io.Reader, out io.Writer, gone func() bool) error {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil {
		return errors.New("bridge: Serve before Wait")
	}
	core := protocol.New(s, protocol.Options{Logger: b.o.Logger, Workers: workers, Substitute: substitute})
	ctx, stop := context.WithCancel(ctx)
	defer stop() // the polling ends with the session
	go b.poll(ctx)
	b.o.Logger.Info("obsidian-mcp bridge ready", "server", b.o.Target(), "transport", b.up.Name(), "tools", len(s.ListTools()))
	return stdio.Serve(ctx, core, in, out, stdio.Options{Logger: b.o.Logger, DrainTimeout: b.o.CallTimeout + 5*time.Second, Gone: gone})
}
