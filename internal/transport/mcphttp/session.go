package mcphttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// A Session is one client's conversation with an endpoint, whichever
// transport carries it: a legacy SSE stream (2024-11-05 HTTP+SSE, which
// ends with its stream), an MCP Streamable HTTP session (initialize to
// DELETE), or the endpoint's shared session, which takes the requests
// that name no session and answers on every SSE stream of the endpoint.
type Session struct {
	id     string
	e      *Endpoint
	legacy bool
	shared bool
	// alone marks the session of one 2026-07-28 request that named none
	// (stateless.go): it lasts as long as that request.
	alone bool
	// ctx ends with the session: the calls it sent through a 202 are
	// cancelled then.
	ctx    context.Context
	cancel context.CancelFunc
	// State is the peer's own (a protocol session, a subprocess's).
	State any

	mu      sync.Mutex
	streams map[*Stream]struct{}
	// own is the stream opened for this session (legacy SSE or a
	// Streamable HTTP GET); a second one is refused with 409.
	own *Stream
	// posts are the Streamable HTTP POSTs of this session waiting for
	// their answers, oldest first: what the server sends while no stream
	// is open goes to the oldest, as an SSE event before its answer.
	posts  []*Stream
	used   time.Time
	closed bool
	// revision is what the client's initialize asked for, when this
	// server speaks it: the revision in force for its later POSTs.
	revision string
}

// ID is the session's id ("shared" for the shared session).
func (s *Session) ID() string { return s.id }

// Send delivers a message the server sends of its own accord (a
// notification, a request to the client) to the session's client.
func (s *Session) Send(msg []byte) {
	if s.e != nil {
		s.e.out(s, msg)
	}
}

// Detached is a session of no endpoint, for a peer's own use (a probe):
// nothing but the answers to what it sends reaches it.
func Detached(id string) *Session { return &Session{id: id} }

// validSessionID reports whether id may be a session id a client chose
// (legacy SSE, `?sessionId=`): 1 to 128 of A–Z, a–z, 0–9 and . _ ~ -;
// ours are 32 hex digits. A loop, not a regexp: `{1,128}` compiles to a
// program of 128 copies, half a millisecond of every start's init.
func validSessionID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '.', c == '_', c == '~', c == '-':
		default:
			return false
		}
	}
	return true
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// deliver sends an event to the session's streams, or, with none open, to
// the oldest POST waiting for its answer. A stream too slow to keep up is
// ended (its client reconnects) rather than let it hold the others back
// or lose messages quietly.
func (s *Session) deliver(ev Event) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for st := range s.streams {
		if st.Offer(ev) {
			n++
		}
	}
	if n == 0 && len(s.posts) > 0 && s.posts[0].Offer(ev) {
		n++
	}
	return n
}

func (s *Session) touch() {
	s.mu.Lock()
	s.used = time.Now()
	s.mu.Unlock()
}

func (s *Session) addStream(st *Stream, own bool) bool {
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

func (s *Session) removeStream(st *Stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, st)
	if s.own == st {
		s.own = nil
	}
	s.used = time.Now()
}

func (s *Session) addPost(st *Stream) {
	s.mu.Lock()
	s.posts = append(s.posts, st)
	s.mu.Unlock()
}

func (s *Session) removePost(st *Stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range s.posts {
		if p == st {
			s.posts = append(s.posts[:i], s.posts[i+1:]...)
			return
		}
	}
}

// idle reports whether a Streamable HTTP session has gone unused, with no
// stream, for longer than d.
func (s *Session) idle(now time.Time, d time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.shared && !s.legacy && s.own == nil && len(s.posts) == 0 && now.Sub(s.used) > d
}

// Event is one SSE event.
type Event struct {
	Name string
	Data []byte
}

// Stream is one open SSE response. Events queue until the handler writes
// them out, within a bound in bytes: a client that does not read is cut
// off (Kill) rather than let its answers pile up in memory.
type Stream struct {
	ch     chan Event
	done   chan struct{}
	logger *slog.Logger
	// max bounds the bytes queued; queued counts them.
	max    int64
	queued atomic.Int64

	mu     sync.Mutex
	killed bool
	why    string
	// finished marks a stream ended by Finish: what is queued is still
	// written before it ends.
	finished bool
	// abort unblocks the write in progress when the stream is killed.
	abort func()
}

// streamQueue is how many events may wait for a slow client, whatever
// their size; DefaultStreamBytes how many bytes.
const (
	streamQueue        = 1024
	DefaultStreamBytes = 16 << 20
)

// NewStream is a stream with nothing queued, on which at most maxBytes
// may wait (DefaultStreamBytes when 0 or less; one event of any size is
// always taken).
func NewStream(logger *slog.Logger, maxBytes int64) *Stream {
	if maxBytes <= 0 {
		maxBytes = DefaultStreamBytes
	}
	return &Stream{ch: make(chan Event, streamQueue), done: make(chan struct{}), logger: logger, max: maxBytes}
}

// Events are the events queued, in order; whoever takes one calls Sent.
func (st *Stream) Events() <-chan Event { return st.ch }

// Sent says ev, taken from Events, has left the queue.
func (st *Stream) Sent(ev Event) { st.queued.Add(-int64(len(ev.Data))) }

// Done is closed when the stream is killed.
func (st *Stream) Done() <-chan struct{} { return st.done }

// Queued is how many bytes wait for the client.
func (st *Stream) Queued() int64 { return st.queued.Load() }

// Offer queues ev, or ends a stream whose client has fallen behind by
// more than its bound (in bytes or in events).
func (st *Stream) Offer(ev Event) bool {
	select {
	case <-st.done:
		return false
	default:
	}
	size := int64(len(ev.Data))
	if q := st.queued.Add(size); q > st.max && q > size {
		st.queued.Add(-size)
		st.cut(fmt.Sprintf("the client is not reading its stream: %d bytes wait for it, over the limit of %d", q-size, st.max))
		return false
	}
	select {
	case st.ch <- ev:
		return true
	default:
		st.queued.Add(-size)
		st.cut("the client is not reading its stream: " + strconv.Itoa(streamQueue) + " events wait for it")
		return false
	}
}

// cut kills a stream whose client fell behind, saying so in the log here,
// where it is decided: the writer may be waiting between events (it then
// just sees the stream end) or blocked in a write (which then fails).
func (st *Stream) cut(why string) {
	st.logger.Info("a stream's client is not reading; its stream is cut", "why", why)
	st.Kill(why)
}

// Killed says why the stream was killed, if it was.
func (st *Stream) Killed() (why string, killed bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.why, st.killed
}

// OnKill sets what unblocks the write in progress when the stream is
// killed (a write deadline in the past), so that a client that stopped
// reading frees its connection slot at once.
func (st *Stream) OnKill(abort func()) {
	st.mu.Lock()
	st.abort = abort
	killed := st.killed
	st.mu.Unlock()
	if killed {
		abort()
	}
}

// Kill ends the stream; why is kept for the logs (the first reason given).
func (st *Stream) Kill(why string) {
	st.mu.Lock()
	first := !st.killed
	if first {
		st.why, st.killed = why, true
	}
	abort := st.abort
	st.mu.Unlock()
	if first {
		close(st.done)
	}
	if abort != nil {
		abort()
	}
}

// Finish ends the stream once what is queued has been written: the
// server is stopping, and the answers of the calls it let finish are on
// their way. (Killed instead, a stream whose writer saw the end before
// the last answer dropped it; the gateway's TestStopFinishesCalls lost
// an answer so about once in a hundred runs.) A client that does not
// read is left to the server's shutdown grace.
func (st *Stream) Finish(why string) {
	st.mu.Lock()
	first := !st.killed
	if first {
		st.why, st.killed, st.finished = why, true, true
	}
	st.mu.Unlock()
	if first {
		close(st.done)
	}
}

// EncodeEvent frames one event; data with line breaks takes several data
// lines, as SSE joins them back.
func EncodeEvent(ev Event) []byte {
	var b bytes.Buffer
	// One allocation of the right size: answers may be megabytes.
	b.Grow(len("event: \n\n") + len(ev.Name) + len(ev.Data) + (bytes.Count(ev.Data, []byte{'\n'})+1)*len("data: \n"))
	b.WriteString("event: ")
	b.WriteString(ev.Name)
	b.WriteByte('\n')
	data := ev.Data
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		b.WriteString("data: ")
		b.Write(bytes.TrimSuffix(line, []byte{'\r'}))
		b.WriteByte('\n')
		if !more {
			break
		}
		data = rest
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// PingEvent is the keep-alive event sent on open streams.
func PingEvent(now time.Time) Event {
	return Event{Name: "ping", Data: []byte(`{"time":"` + now.UTC().Format(time.RFC3339) + `"}`)}
}

// serveStream writes a stream's events until the client goes, the session
// ends or the server stops, with a ping every PingInterval.
func (e *Endpoint) serveStream(w http.ResponseWriter, r *http.Request, st *Stream, sessID string, first ...Event) {
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		Refuse(w, http.StatusServiceUnavailable, "STOPPING", "the server is stopping", "")
		return
	}
	e.streams[st] = struct{}{}
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.streams, st)
		e.mu.Unlock()
	}()
	e.opts.Monitor.Connection("connected", sessID)
	defer e.opts.Monitor.Connection("disconnected", sessID)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// A client that stops reading blocks a write once the sockets'
	// buffers are full: each write has WriteTimeout, and a kill (the
	// queue over its bound) ends the write at once, so the stream's
	// connection slot is freed either way.
	st.OnKill(func() { _ = rc.SetWriteDeadline(time.Now()) })
	write := func(ev Event) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(e.opts.WriteTimeout))
		_, err := w.Write(EncodeEvent(ev))
		if err == nil {
			// A write may only fill the buffer: the blocked socket, or
			// the kill, then surfaces here.
			err = rc.Flush()
		}
		if err != nil {
			if why, killed := st.Killed(); killed {
				// The kill ended this write, and was logged where decided.
				e.logger.Debug("stream ended during a write", "endpoint", e.opts.Name, "session", sessID, "why", why)
			} else {
				e.logger.Info("a stream's client stopped reading; its stream is cut", "endpoint", e.opts.Name, "session", sessID, "err", err)
			}
			return false
		}
		return true
	}
	for _, ev := range first {
		if !write(ev) {
			return
		}
	}
	if len(first) == 0 {
		_ = rc.Flush()
	}
	ping := time.NewTicker(e.opts.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-st.done:
			st.mu.Lock()
			why, finished := st.why, st.finished
			st.mu.Unlock()
			for finished {
				select {
				case ev := <-st.ch:
					st.Sent(ev)
					if !write(ev) {
						return
					}
					continue
				default:
				}
				break
			}
			e.logger.Debug("stream ended", "endpoint", e.opts.Name, "session", sessID, "why", why)
			return
		case ev := <-st.ch:
			st.Sent(ev)
			if !write(ev) {
				return
			}
		case now := <-ping.C:
			if !write(PingEvent(now)) {
				return
			}
		}
	}
}

// noteRevision keeps the revision an initialize request asks for, when it
// is one this server speaks.
func (s *Session) noteRevision(raw []byte) {
	var p struct {
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if s.shared || json.Unmarshal(raw, &p) != nil || !protocol.Supported(p.Params.ProtocolVersion) {
		return
	}
	s.mu.Lock()
	s.revision = p.Params.ProtocolVersion
	s.mu.Unlock()
}

// Revision is the revision the session's client asked for at initialize
// (see noteRevision), or "".
func (s *Session) Revision() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revision
}
