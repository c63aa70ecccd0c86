package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// sessionIdle is how long a session may go unused before it is forgotten
// (a client that vanished without DELETE).
const sessionIdle = time.Hour

// sessions is mcp-go's SessionIdManager for this server. A client that
// initializes gets a session id, which must then be one this process
// issued and has not ended: an unknown or ended id is answered 404, so the
// client starts again (MCP Streamable HTTP). A request that carries no id
// at all is served on its own, with no session: that is how the ObsiScripta
// stdio bridge and simple scripts post tools/list and tools/call, without
// initialize.
type sessions struct {
	mu   sync.Mutex
	seen map[string]time.Time
	now  func() time.Time
}

func newSessions() *sessions {
	return &sessions{seen: map[string]time.Time{}, now: time.Now}
}

// Generate issues a new session id, unguessable (128 random bits).
func (s *sessions) Generate() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	id := "mcp-session-" + hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for old, at := range s.seen {
		if now.Sub(at) > sessionIdle {
			delete(s.seen, old)
		}
	}
	s.seen[id] = now
	return id
}

// Validate accepts no id (a session-less request) and the ids in use.
func (s *sessions) Validate(id string) (terminated bool, err error) {
	if id == "" {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.seen[id]
	if !ok || s.now().Sub(at) > sessionIdle {
		delete(s.seen, id)
		return false, fmt.Errorf("session %q is not open on this server (it ended, or the server restarted): initialize again", id)
	}
	s.seen[id] = s.now()
	return false, nil
}

// Terminate ends a session (DELETE).
func (s *sessions) Terminate(id string) (notAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, id)
	return false, nil
}
