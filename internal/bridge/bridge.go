// Package bridge is `obsidian-mcp bridge`: a stdio MCP server whose tools
// are those of an HTTP server (the ObsiScripta plugin, or our own
// `obsidian-mcp serve`), reached through internal/bridge/upstream, as the stdio
// bridge contract describes (the README's bridge section).
//
// It serves stdio at once, whatever the server's state, through the
// protocol core (internal/transport/stdio: answers drained at end of input,
// cancellations honoured): initialize is answered after one bounded try of
// the server (FirstContact), which decides the capabilities. Until the
// server answers, no tools are listed and a call is an isError result
// naming the server and the fix; the bridge tries again with back-off, and
// when the tools arrive the client gets notifications/tools/list_changed.
// Once connected it polls the tool list and replaces the set when its hash
// changes, so that the client gets one list_changed per real change; a
// server that goes away keeps its last tools. A call goes to the server
// once: failures come back as isError results, never as a second attempt.
// Resources and prompts are forwarded when the server offered them over
// MCP at first contact.
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

// Backoff paces the tries of a server that does not answer: First,
// doubling up to Max. After Attempts tries (the contract's retry budget)
// the bridge says so once in its log and goes on trying every Max: a
// client that stays connected gets the tools whenever the server comes.
type Backoff struct {
	First, Max time.Duration
	Attempts   int
}

// DefaultBackoff is the contract's: 1 s doubling to 30 s, 30 attempts.
var DefaultBackoff = Backoff{First: time.Second, Max: 30 * time.Second, Attempts: 30}

// DefaultFirstContact bounds the try before initialize is answered: long
// enough for a server on this machine, short against any client's
// patience.
const DefaultFirstContact = 2 * time.Second

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
	// FirstContact bounds the one try of the server made before the
	// first message is answered (default DefaultFirstContact).
	FirstContact time.Duration
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

	mu   sync.Mutex
	hash string
	// connected: the tools were listed once; until then down says why
	// not, for the calls that come meanwhile.
	connected bool
	down      error
	failing   bool // the last poll failed; logged once per streak
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
	if o.FirstContact <= 0 {
		o.FirstContact = DefaultFirstContact
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

// ready checks health, then lists the tools: one try.
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

// start makes the bridge's MCP server: after one try of the server,
// bounded by FirstContact, with the capabilities it offers; without them
// (no answer) tools only, none listed yet.
func (b *Bridge) start(ctx context.Context) *server.MCPServer {
	fctx, cancel := context.WithTimeout(ctx, b.o.FirstContact)
	err := b.ready(fctx)
	cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.s == nil {
		b.s = b.newServer(nil)
	}
	if err != nil {
		b.down = err
	}
	return b.s
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
	var offers map[string]json.RawMessage
	b.mu.Lock()
	first := b.s == nil
	b.mu.Unlock()
	if first {
		// The server answers before any client was: what it offers
		// besides tools decides the bridge's capabilities.
		offers = b.capabilities(ctx)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if hash == b.hash && b.connected {
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
	if b.s == nil {
		b.s = b.newServer(offers)
	}
	changed := b.connected
	b.hash, b.connected, b.down = hash, true, nil
	b.s.SetTools(set...)
	if changed {
		b.o.Logger.Info("the server's tools changed", "tools", len(set), "hash", hash)
	}
	return changed, nil
}

// keep keeps the tools up to date until ctx ends: until the server first
// answers, a try after each back-off wait; then a poll every Poll. A
// failing server keeps the last tool set; each streak of failures is
// logged once, and its end too.
func (b *Bridge) keep(ctx context.Context) {
	delay, tries := b.o.Backoff.First, 1 // start made the first
	for {
		b.mu.Lock()
		connected := b.connected
		b.mu.Unlock()
		wait := b.o.Poll
		if !connected {
			wait = delay
			delay = min(2*delay, b.o.Backoff.Max)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if !connected {
			tries++
			b.try(ctx, tries)
			continue
		}
		b.poll(ctx)
	}
}

// try is one more try of a server that has not answered yet.
func (b *Bridge) try(ctx context.Context, tries int) {
	if b.o.Rediscover != nil && b.o.Rediscover() {
		b.o.Logger.Info("the server moved; trying its new address", "server", b.o.Target())
	}
	err := b.ready(ctx)
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		b.mu.Lock()
		n := len(b.s.ListTools())
		b.mu.Unlock()
		b.o.Logger.Info("the server answers; its tools are served", "server", b.o.Target(), "tools", n, "tries", tries)
		return
	}
	b.mu.Lock()
	b.down = err
	b.mu.Unlock()
	switch {
	case tries < b.o.Backoff.Attempts:
		b.o.Logger.Info("waiting for the server", "server", b.o.Target(), "attempt", tries, "err", err)
	case tries == b.o.Backoff.Attempts:
		b.o.Logger.Warn("the server still does not answer; trying every "+b.o.Backoff.Max.String()+" while the client is connected", "server", b.o.Target(), "attempts", tries, "err", err)
	}
}

// poll syncs the tools of a server that answered before.
func (b *Bridge) poll(ctx context.Context) {
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
	if ctx.Err() != nil {
		return
	}
	b.o.Logger.Debug("polled the server's tools", "server", b.o.Target(), "ok", err == nil)
	switch {
	case err != nil && !was:
		b.o.Logger.Warn("the server's tools cannot be listed; serving the last ones", "server", b.o.Target(), "err", err)
	case err == nil && was:
		b.o.Logger.Info("the server answers again", "server", b.o.Target())
	}
}

// Serve answers MCP over in and out until in ends or ctx is cancelled,
// from the first message on, whatever the server's state (see start).
// Every request read is answered before it returns.
func (b *Bridge) Serve(ctx context.Context, in io.Reader, out io.Writer, gone func() bool) error {
	s := b.start(ctx)
	core := protocol.New(s, protocol.Options{Logger: b.o.Logger, Workers: workers, Substitute: b.substitute})
	ctx, stop := context.WithCancel(ctx)
	defer stop() // the tries and polls end with the session
	go b.keep(ctx)
	b.mu.Lock()
	down := b.down
	b.mu.Unlock()
	if down != nil {
		b.o.Logger.Warn("serving with no tools until the server answers", "server", b.o.Target(), "transport", b.up.Name(), "err", down, "fix", b.fix(down))
	} else {
		b.o.Logger.Info("obsidian-mcp bridge ready", "server", b.o.Target(), "transport", b.up.Name(), "tools", len(s.ListTools()))
	}
	return stdio.Serve(ctx, core, in, out, stdio.Options{Logger: b.o.Logger, DrainTimeout: b.o.CallTimeout + 5*time.Second, Gone: gone})
}

// unreachable words why the server cannot serve a call, with the fix.
func (b *Bridge) unreachable(err error) string {
	if r := refused(err); r != nil {
		return "Error: " + r.Error()
	}
	return fmt.Sprintf("Error: %s cannot be reached (%v): %s", b.o.Target(), err, b.fix(err))
}

// fix is what to do about the server not answering.
func (b *Bridge) fix(err error) string {
	if r := refused(err); r != nil {
		return KeyFix
	}
	return "start Obsidian with the ObsiScripta Bridge plugin enabled, or obsidian-mcp serve, at that address (or point --url / OBSIDIAN_MCP_URL at it); the bridge keeps trying and the client is told when the tools arrive"
}
