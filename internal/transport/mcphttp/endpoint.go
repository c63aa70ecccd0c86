// Package mcphttp serves MCP over HTTP for one endpoint, with both
// transports MCP has had on one session table.
//
//   - Streamable HTTP (2025-03-26 on): POST answers in its body (as JSON,
//     or as an SSE stream when the server sends something while the call
//     runs), initialize opens a session (Mcp-Session-Id), GET with the id
//     opens its stream, DELETE ends it;
//   - HTTP+SSE (2024-11-05): GET opens a stream whose first event names
//     the message URL with a session id; POST there answers 202 at once and
//     the answer comes on the stream.
//
// A POST that names no session goes to the endpoint's shared session, as
// scripts and the ObsiScripta bridge post tools/list and calls. A Peer
// serves the JSON-RPC (CorePeer: the protocol core, in this process; the
// gateway's command namespaces: a subprocess); the transport never looks
// inside a message beyond what routing needs. `obsidian-mcp serve` mounts
// one endpoint at /mcp, the gateway one per namespace.
package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// A Peer serves the JSON-RPC of one endpoint. Transports hand it messages;
// it never knows which transport a message came by.
type Peer interface {
	// Attach starts serving a new session; Detach ends it.
	Attach(s *Session) error
	Detach(s *Session)
	// Send takes one message from a session's client. reply receives the
	// answer to a request, exactly once, even when the call fails or ctx
	// ends (nil: the request was cancelled and gets no answer); for
	// anything else it may be called with nil. Messages the server sends
	// of its own accord go to s.Send.
	Send(ctx context.Context, s *Session, m *Message, reply func([]byte))
}

// Monitor sees every message and stream of an endpoint (the gateway's
// dashboard). Its methods must not block.
type Monitor interface {
	Message(direction, session string, msg []byte) // direction "in" or "out"
	Connection(what, session string)               // "connected" or "disconnected"
}

// Options configure an Endpoint.
type Options struct {
	Logger *slog.Logger
	// Name is the endpoint's in logs.
	Name string
	// MessagePath is the HTTP+SSE message URL announced to legacy streams
	// ("/mcp/notes/message"); requests for it come to ServeHTTP too.
	MessagePath string
	// MaxRequest bounds a POST body (default 4 MiB); MaxResponse one answer
	// (0: no bound), larger answers becoming an error that says so, and a
	// batch's answers in all (0: protocol.DefaultMaxBatchBytes).
	MaxRequest, MaxResponse int64
	// MaxBatch bounds the messages of a batch (default
	// protocol.DefaultMaxBatch); a larger one is refused whole.
	MaxBatch int
	// PingInterval paces the ping events on open streams (default 30 s).
	PingInterval time.Duration
	// SessionIdle is how long a Streamable HTTP session may go unused, with
	// no stream open, before it is forgotten (default 1 h).
	SessionIdle time.Duration
	// MaxSessions bounds the sessions open at once (default
	// DefaultMaxSessions): a new one past it takes the place of the one
	// unused longest, whose client is told so if it comes back; when every
	// session is busy (a stream open, a call waiting) it is refused (503).
	MaxSessions int
	// SessionsSetting names the setting that bounds MaxSessions.
	SessionsSetting string
	// Conns holds a token per open stream, shared by endpoints (nil: no
	// bound); a stream past it is refused with 503.
	Conns chan struct{}
	// ConnsSetting names the setting that bounds Conns, for the refusal.
	ConnsSetting string
	// StreamBytes bounds what may wait on one stream for a client that
	// does not read (default twice MaxResponse, at least
	// DefaultStreamBytes); past it the stream is cut.
	StreamBytes int64
	// WriteTimeout bounds one write to a stream (DefaultWriteTimeout when
	// 0): a client that reads nothing for that long is cut off.
	WriteTimeout time.Duration
	// BodyTimeout bounds the reading of a POST's body (default 30 s).
	BodyTimeout time.Duration
	// MaxPosts bounds the POSTs read and served at once (default 64), so
	// that their bodies in memory are bounded too; more wait up to
	// PostWait (default 30 s), then get 503.
	MaxPosts int
	PostWait time.Duration
	Monitor  Monitor
	// Screen, when set, sees each POST's messages before they are served,
	// and may answer the request instead (it returns true when it did):
	// the scope challenge to a client granted reading alone that calls a
	// tool that writes.
	Screen func(w http.ResponseWriter, r *http.Request, msgs []*Message) bool
}

// Endpoint is one MCP endpoint's sessions and streams.
type Endpoint struct {
	peer   Peer
	opts   Options
	logger *slog.Logger
	shared *Session

	mu       sync.Mutex
	sessions map[string]*Session
	// alone are the sessions of the 2026-07-28 requests being served.
	alone   map[*Session]struct{}
	streams map[*Stream]struct{}
	stopped bool
	// evicted remembers the sessions closed to make room (bounded), so
	// that their clients learn why theirs is gone.
	evicted      map[string]struct{}
	evictedOrder []string
	// posts holds a token per POST being read or served (MaxPosts).
	posts chan struct{}
}

// DefaultWriteTimeout bounds one write to a stream.
const DefaultWriteTimeout = 30 * time.Second

// DefaultMaxSessions bounds an endpoint's sessions: about 10 KB each, so
// a few MB in all.
const DefaultMaxSessions = 256

type noMonitor struct{}

func (noMonitor) Message(string, string, []byte) {}
func (noMonitor) Connection(string, string)      {}

// New opens an endpoint on peer, with its shared session attached.
func New(peer Peer, opts Options) (*Endpoint, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxRequest <= 0 {
		opts.MaxRequest = 4 << 20
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 30 * time.Second
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = time.Hour
	}
	if opts.Monitor == nil {
		opts.Monitor = noMonitor{}
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionsSetting == "" {
		opts.SessionsSetting = "the session limit"
	}
	if opts.StreamBytes <= 0 {
		opts.StreamBytes = max(2*opts.MaxResponse, DefaultStreamBytes)
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = protocol.DefaultMaxBatch
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 30 * time.Second
	}
	if opts.MaxPosts <= 0 {
		opts.MaxPosts = 64
	}
	if opts.PostWait <= 0 {
		opts.PostWait = 30 * time.Second
	}
	if opts.ConnsSetting == "" {
		opts.ConnsSetting = "the connection limit"
	}
	e := &Endpoint{peer: peer, opts: opts, logger: opts.Logger, sessions: map[string]*Session{}, alone: map[*Session]struct{}{}, streams: map[*Stream]struct{}{}, evicted: map[string]struct{}{},
		posts: make(chan struct{}, opts.MaxPosts)}
	e.shared = e.newSession("shared", false)
	e.shared.shared = true
	if err := peer.Attach(e.shared); err != nil {
		return nil, err
	}
	return e, nil
}

// Header names.
const (
	HeaderSession         = "Mcp-Session-Id"
	HeaderProtocolVersion = "MCP-Protocol-Version"
)

// ServeHTTP serves the endpoint: its path, and MessagePath for the legacy
// POSTs.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e.isStopped() {
		w.Header().Set("Connection", "close")
		Refuse(w, http.StatusServiceUnavailable, "STOPPING", "the server is stopping", "Try again once it is back.")
		return
	}
	if v := r.Header.Get(HeaderProtocolVersion); v != "" && !protocol.Supported(v) {
		// MCP Streamable HTTP: an unsupported revision is a 400; a POST
		// gets the JSON-RPC UnsupportedProtocolVersionError (SEP-2575)
		// under its request's id, listing the revisions spoken.
		if r.Method == http.MethodPost {
			if body, ok := e.readBody(w, r); ok {
				writeRefusal(w, []byte(gjson.GetBytes(body, "id").Raw), unsupported(v))
			}
			return
		}
		Refuse(w, http.StatusBadRequest, "UNSUPPORTED_PROTOCOL_VERSION", fmt.Sprintf("MCP-Protocol-Version %q is not a revision this server speaks", v),
			"Use one of "+strings.Join(protocol.Revisions, ", ")+", or leave the header out.")
		return
	}
	message := e.opts.MessagePath != "" && r.URL.Path == e.opts.MessagePath
	switch {
	case r.Method == http.MethodGet && r.Header.Get(HeaderSession) != "":
		e.streamableGet(w, r)
	case r.Method == http.MethodGet && !message:
		e.legacyStream(w, r)
	case r.Method == http.MethodPost:
		if !e.takePost(w, r) {
			return
		}
		defer func() { <-e.posts }()
		if message {
			e.legacyPost(w, r)
		} else {
			e.streamablePost(w, r)
		}
	case r.Method == http.MethodDelete && !message:
		e.streamableDelete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE, OPTIONS")
		Refuse(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", r.Method+" is not served here", "GET opens a stream, POST sends a message, DELETE ends a session.")
	}
}

// newSession makes a session (not yet attached to the peer).
func (e *Endpoint) newSession(id string, legacy bool) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{id: id, e: e, legacy: legacy, ctx: ctx, cancel: cancel, streams: map[*Stream]struct{}{}, used: time.Now()}
}

var (
	errDuplicate = errors.New("duplicate session")
	errTooMany   = errors.New("too many sessions")
)

// open makes, attaches and records a session: id "" gets a fresh one. It
// fails with errDuplicate when the id is taken, and with errTooMany when
// MaxSessions are open and none can make room.
func (e *Endpoint) open(id string, legacy bool) (*Session, error) {
	if id == "" {
		id = newSessionID()
	}
	e.sweep()
	e.mu.Lock()
	if _, taken := e.sessions[id]; taken || id == e.shared.id {
		e.mu.Unlock()
		return nil, errDuplicate
	}
	var evict *Session
	if len(e.sessions) >= e.opts.MaxSessions {
		if evict = e.idlest(); evict == nil {
			e.mu.Unlock()
			return nil, errTooMany
		}
		e.forget(evict.id)
		delete(e.sessions, evict.id)
	}
	s := e.newSession(id, legacy)
	e.sessions[id] = s
	e.mu.Unlock()
	if evict != nil {
		e.logger.Info("a session was closed to make room for a new one", "endpoint", e.opts.Name, "session", evict.id, "max", e.opts.MaxSessions)
		e.end(evict)
	}
	if err := e.peer.Attach(s); err != nil {
		e.mu.Lock()
		delete(e.sessions, id)
		e.mu.Unlock()
		return nil, err
	}
	return s, nil
}

// idlest is the session unused longest that has no stream open and no
// call waiting, nil when every session is busy (e.mu held).
func (e *Endpoint) idlest() *Session {
	var oldest *Session
	var at time.Time
	for _, s := range e.sessions {
		s.mu.Lock()
		busy, used := s.own != nil || len(s.posts) > 0, s.used
		s.mu.Unlock()
		if !busy && (oldest == nil || used.Before(at)) {
			oldest, at = s, used
		}
	}
	return oldest
}

// forget records id as evicted, keeping the last 4 × MaxSessions (e.mu
// held).
func (e *Endpoint) forget(id string) {
	e.evicted[id] = struct{}{}
	e.evictedOrder = append(e.evictedOrder, id)
	if len(e.evictedOrder) > 4*e.opts.MaxSessions {
		delete(e.evicted, e.evictedOrder[0])
		e.evictedOrder = e.evictedOrder[1:]
	}
}

// wasEvicted reports whether id was closed to make room.
func (e *Endpoint) wasEvicted(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.evicted[id]
	return ok
}

// lookup finds an open session.
func (e *Endpoint) lookup(id string) *Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[id]
}

// end closes a session: its streams end, its calls are cancelled.
func (e *Endpoint) end(s *Session) {
	e.mu.Lock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
	e.mu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for st := range s.streams {
		if st == s.own {
			st.Kill("the session ended")
		}
	}
	s.mu.Unlock()
	s.cancel()
	e.peer.Detach(s)
}

func (e *Endpoint) sweep() {
	now := time.Now()
	var gone []*Session
	e.mu.Lock()
	for _, s := range e.sessions {
		if s.idle(now, e.opts.SessionIdle) {
			gone = append(gone, s)
		}
	}
	e.mu.Unlock()
	for _, s := range gone {
		e.end(s)
	}
}

// Sessions are the ids of the sessions open, the shared one left out.
func (e *Endpoint) Sessions() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]string, 0, len(e.sessions))
	for id := range e.sessions {
		ids = append(ids, id)
	}
	return ids
}

// Stop refuses new requests and ends every open stream once what is
// queued on it is written (Stream.Finish); answers still being computed
// reach their POSTs.
func (e *Endpoint) Stop() {
	e.mu.Lock()
	e.stopped = true
	for st := range e.streams {
		st.Finish("the server is stopping")
	}
	e.mu.Unlock()
}

func (e *Endpoint) isStopped() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped
}

// Close ends every session, the shared one too.
func (e *Endpoint) Close() {
	e.mu.Lock()
	open := make([]*Session, 0, len(e.sessions)+len(e.alone))
	for _, s := range e.sessions {
		open = append(open, s)
	}
	for s := range e.alone {
		open = append(open, s)
	}
	e.mu.Unlock()
	for _, s := range open {
		e.end(s)
	}
	e.shared.cancel()
	e.peer.Detach(e.shared)
}

// out delivers a message for a session on its streams (or the POST
// waiting for an answer), within MaxResponse.
func (e *Endpoint) out(s *Session, msg []byte) {
	msg = e.bounded(msg)
	if msg == nil {
		return
	}
	e.opts.Monitor.Message("out", s.id, msg)
	if s.deliver(Event{Name: "message", Data: msg}) == 0 {
		e.logger.Debug("no stream to take a message; dropped", "endpoint", e.opts.Name, "session", s.id)
	}
}

// bounded is msg, or, for an answer over MaxResponse, an error answer
// saying so; a notification over the limit is dropped (nil).
func (e *Endpoint) bounded(msg []byte) []byte {
	limit := e.opts.MaxResponse
	if limit <= 0 || int64(len(msg)) <= limit {
		return msg
	}
	id := responseID(msg)
	e.logger.Warn("an answer is over the response limit", "endpoint", e.opts.Name, "bytes", len(msg), "limit", limit, "answer", id != nil)
	if id == nil {
		return nil
	}
	return LimitResponse(id, len(msg), limit)
}

// LimitResponse is the error answer to id for an answer of size bytes
// (-1: more than was kept) over limit (limits.max_response). Its data
// says so, for clients and for a POST's status (500).
func LimitResponse(id json.RawMessage, size int, limit int64) []byte {
	what := fmt.Sprintf("is %d bytes", size)
	if size < 0 {
		what = fmt.Sprintf("is over %d bytes", limit)
	}
	msg := fmt.Sprintf("the answer %s, over the limit of %d (limits.max_response): ask for less, or raise the limit", what, limit)
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": -32603, "message": msg, "data": map[string]any{"limit": "max_response", "max_bytes": limit}}})
	return out
}

// isLimitResponse reports whether answer is a LimitResponse.
func isLimitResponse(answer []byte) bool {
	if !bytes.Contains(answer, []byte(`"max_response"`)) {
		return false
	}
	var a struct {
		Error *struct {
			Data struct{ Limit string } `json:"data"`
		} `json:"error"`
	}
	return json.Unmarshal(answer, &a) == nil && a.Error != nil && a.Error.Data.Limit == "max_response"
}

// refusal is the body of an HTTP refusal on every face.
type refusal struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
}

// Refuse answers an HTTP request with status and a JSON body naming the
// error (a stable code), what happened and what to do.
func Refuse(w http.ResponseWriter, status int, code, msg, details string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(refusal{Error: code, Message: msg, Details: details})
}
