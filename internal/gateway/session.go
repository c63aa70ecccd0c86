package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"regexp"
	"sync"
	"time"
)

// A session is one client's conversation with a namespace, whichever
// transport carries it: a legacy SSE stream (2024-11-05 HTTP+SSE, which
// ends with its stream), an MCP Streamable HTTP session (initialize to
// DELETE), or the namespace's shared session, which takes the requests
// that name no session and answers on every SSE stream of the namespace.
type session struct {
	id     string
	ns     *namespace
	legacy bool
	shared bool
	// ctx ends with the session: the calls it sent through a 202 are
	// cancelled then.
	ctx    context.Context
	cancel context.CancelFunc
	// state is the peer's own (an in-process MCP session for a vault).
	state any

	mu      sync.Mutex
	streams map[*stream]struct{}
	// own is the stream opened for this session (legacy SSE or a
	// Streamable HTTP GET); a second one is refused with 409.
	own    *stream
	used   time.Time
	closed bool
}

// sessionID is what a client may choose as its session id (legacy SSE,
// `?sessionId=`); ours are 32 hex digits.
var sessionID = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,128}$`)

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// deliver sends an event to the session's streams. A stream too slow to
// keep up is ended (its client reconnects) rather than let it hold the
// others back or lose messages quietly.
func (s *session) deliver(ev event) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for st := range s.streams {
		if st.offer(ev) {
			n++
		}
	}
	return n
}

func (s *session) touch() {
	s.mu.Lock()
	s.used = time.Now()
	s.mu.Unlock()
}

func (s *session) addStream(st *stream, own bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || own && s.own != nil {
		return false
	}
	if own {
		s.own = st
	}
	s.streams[st] = struct{}{}
	return true
}

func (s *session) removeStream(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, st)
	if s.own == st {
		s.own = nil
	}
	s.used = time.Now()
}

// idle reports whether a Streamable HTTP session has gone unused, with no
// stream, for longer than d.
func (s *session) idle(now time.Time, d time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.shared && !s.legacy && s.own == nil && now.Sub(s.used) > d
}

// event is one SSE event.
type event struct {
	name string
	data []byte
}

// stream is one open SSE response. Events queue in ch; the handler writes
// them out. kill ends it from anywhere.
type stream struct {
	ch     chan event
	done   chan struct{}
	once   sync.Once
	why    string
	logger *slog.Logger
}

// streamQueue is how many events may wait for a slow client.
const streamQueue = 256

func newStream(logger *slog.Logger) *stream {
	return &stream{ch: make(chan event, streamQueue), done: make(chan struct{}), logger: logger}
}

// offer queues ev, or ends a stream whose queue is full.
func (st *stream) offer(ev event) bool {
	select {
	case <-st.done:
		return false
	default:
	}
	select {
	case st.ch <- ev:
		return true
	default:
		st.kill("the client is not reading its stream fast enough")
		return false
	}
}

func (st *stream) kill(why string) {
	st.once.Do(func() {
		st.why = why
		close(st.done)
	})
}
