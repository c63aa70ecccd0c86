package mcphttp

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// CorePeer serves an endpoint through a protocol core, in this process:
// each session of the endpoint is a session of the core, so that
// notifications reach the right client, initialize is the client's own,
// and the server's requests to the client (elicitation) travel on the
// session's stream or the POST that caused them, their answers coming
// back in a POST.
type CorePeer struct{ Core *protocol.Core }

// Attach implements Peer.
func (p CorePeer) Attach(s *Session) error {
	sess, err := p.Core.Open(s.id, func(msg []byte) error {
		s.Send(msg)
		return nil
	}, protocol.SessionOptions{Asks: true})
	if err != nil {
		return err
	}
	if s.shared || s.alone {
		// Requests that name no session never initialize one; the
		// notifications their calls send (progress) still reach them.
		sess.Initialize()
	}
	s.State = sess
	return nil
}

// Detach implements Peer.
func (p CorePeer) Detach(s *Session) { s.State.(*protocol.Session).Close() }

// Send implements Peer.
func (p CorePeer) Send(ctx context.Context, s *Session, m *Message, reply func([]byte)) {
	s.State.(*protocol.Session).Receive(ctx, m.Raw, reply)
}
