package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/internal/calls"
)

// Vault is a vault namespace's MCP server, served in this process: the
// same server, tools, policy and error contract as `obsidian-mcp` on
// stdio, with no subprocess.
type Vault struct {
	Server *server.MCPServer
	// Errors is the OnError hook Server was built with, so that failed
	// calls keep their typed error.
	Errors *calls.Errors
	// CallTimeout bounds one request (0: none).
	CallTimeout time.Duration
	// Close releases the vault (its index, its watcher).
	Close func()
}

// vaultWorkers is how many requests of one vault run at once, as on stdio.
const vaultWorkers = 8

// vaultPeer serves a vault namespace: each gateway session is an mcp-go
// session of the vault's server, so that notifications reach the right
// client and initialize is the client's own.
type vaultPeer struct {
	name   string
	v      *Vault
	slots  chan struct{}
	calls  sync.WaitGroup
	logger *slog.Logger
}

func newVaultPeer(name string, v *Vault, logger *slog.Logger) *vaultPeer {
	return &vaultPeer{name: name, v: v, slots: make(chan struct{}, vaultWorkers), logger: logger}
}

// vaultSession is an mcp-go ClientSession for one gateway session.
type vaultSession struct {
	id          string
	notes       chan mcp.JSONRPCNotification
	done        chan struct{}
	initialized atomic.Bool
}

func (s *vaultSession) SessionID() string                                   { return s.id }
func (s *vaultSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }
func (s *vaultSession) Initialize()                                         { s.initialized.Store(true) }
func (s *vaultSession) Initialized() bool                                   { return s.initialized.Load() }

func (p *vaultPeer) attach(s *session) error {
	vs := &vaultSession{id: s.id, notes: make(chan mcp.JSONRPCNotification, 100), done: make(chan struct{})}
	if err := p.v.Server.RegisterSession(context.Background(), vs); err != nil {
		return err
	}
	s.state = vs
	go func() {
		for {
			select {
			case n := <-vs.notes:
				if b, err := json.Marshal(n); err == nil {
					s.ns.notify(s, b)
				}
			case <-vs.done:
				return
			}
		}
	}()
	return nil
}

func (p *vaultPeer) detach(s *session) {
	vs := s.state.(*vaultSession)
	p.v.Server.UnregisterSession(context.Background(), vs.id)
	close(vs.done)
}

func (p *vaultPeer) send(ctx context.Context, s *session, m *message, reply func([]byte)) {
	vs := s.state.(*vaultSession)
	switch {
	case m.isResponse():
		// The vault's server asks nothing of its clients through the
		// gateway (its deletes confirm with confirm_path).
		p.logger.Debug("an answer from a client to no question; dropped", "namespace", p.name, "session", s.id)
	case m.isNotification():
		// Synchronous, so that notifications/cancelled reaches the call
		// while it runs.
		p.v.Errors.Handle(p.v.Server.WithContext(ctx, vs), p.v.Server, m.raw)
	default:
		p.calls.Add(1)
		go func() {
			defer p.calls.Done()
			select {
			case p.slots <- struct{}{}:
				defer func() { <-p.slots }()
			case <-ctx.Done():
				reply(errorResponse(m.id, -32603, "the call was cancelled before it started; nothing was done"))
				return
			}
			cctx := ctx
			if p.v.CallTimeout > 0 {
				var cancel context.CancelFunc
				cctx, cancel = context.WithTimeout(ctx, p.v.CallTimeout)
				defer cancel()
			}
			out := p.v.Errors.Handle(p.v.Server.WithContext(cctx, vs), p.v.Server, m.raw)
			if out == nil {
				out = errorResponse(m.id, -32603, "the server gave no answer")
			}
			reply(out)
		}()
	}
}

func (p *vaultPeer) health() Health { return Health{Namespace: p.name, Status: "running"} }

// drain waits for the calls in flight, until ctx ends.
func (p *vaultPeer) drain(ctx context.Context) {
	done := make(chan struct{})
	go func() { p.calls.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (p *vaultPeer) close() {
	if p.v.Close != nil {
		p.v.Close()
	}
}
