package gateway

import (
	"context"
	"log/slog"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// Vault is a vault namespace's MCP server, served in this process: the
// same server, tools, policy and error contract as `obsidian-mcp` on
// stdio, through the same protocol core, with no subprocess.
type Vault struct {
	// Core dispatches to the vault's server; its options bound the calls
	// (workers, per-call timeout).
	Core *protocol.Core
	// Close releases the vault (its index, its watcher).
	Close func()
}

// vaultPeer serves a vault namespace: each gateway session is a session
// of the vault's protocol core, so that notifications reach the right
// client and initialize is the client's own.
type vaultPeer struct {
	name   string
	v      *Vault
	logger *slog.Logger
}

func newVaultPeer(name string, v *Vault, logger *slog.Logger) *vaultPeer {
	return &vaultPeer{name: name, v: v, logger: logger}
}

func (p *vaultPeer) attach(s *session) error {
	// The vault's server asks nothing of its clients through the gateway
	// (its deletes confirm with confirm_path), so the session has no asks.
	sess, err := p.v.Core.Open(s.id, func(msg []byte) error {
		s.ns.notify(s, msg)
		return nil
	}, protocol.SessionOptions{})
	if err != nil {
		return err
	}
	s.state = sess
	return nil
}

func (p *vaultPeer) detach(s *session) { s.state.(*protocol.Session).Close() }

func (p *vaultPeer) send(ctx context.Context, s *session, m *message, reply func([]byte)) {
	s.state.(*protocol.Session).Receive(ctx, m.raw, reply)
}

func (p *vaultPeer) health() Health { return Health{Namespace: p.name, Status: "running"} }

// drain waits for the calls in flight, until ctx ends.
func (p *vaultPeer) drain(ctx context.Context) { p.v.Core.Wait(ctx) }

func (p *vaultPeer) close() {
	if p.v.Close != nil {
		p.v.Close()
	}
}
