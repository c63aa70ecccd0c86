package mcphttp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// legacyStream is GET on the endpoint: an SSE stream for a new session,
// or for the one `?sessionId=` names when it has no stream yet.
func (e *Endpoint) legacyStream(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	if id != "" && !validSessionID(id) {
		Refuse(w, http.StatusBadRequest, "BAD_SESSION_ID", "sessionId must be 1 to 128 letters, digits or . _ ~ -", "Leave it out to get a new session.")
		return
	}
	if !e.takeConn(w) {
		return
	}
	defer e.releaseConn()
	st := NewStream(e.logger, e.opts.StreamBytes)
	s := e.lookup(id)
	if id != "" && s != nil {
		if !s.addStream(st, true) {
			e.duplicate(w, id)
			return
		}
	} else {
		var err error
		if s, err = e.open(id, true); err != nil {
			if errors.Is(err, errDuplicate) {
				e.duplicate(w, id)
			} else {
				e.openFailed(w, err)
			}
			return
		}
		s.addStream(st, true)
	}
	e.shared.addStream(st, false)
	defer func() {
		e.shared.removeStream(st)
		s.removeStream(st)
		if s.legacy {
			e.end(s)
		}
	}()
	e.serveStream(w, r, st, s.id, Event{Name: "endpoint", Data: []byte(e.opts.MessagePath + "?sessionId=" + s.id)})
}

// legacyPost is POST to MessagePath: 202 at once, the answers on the
// session's stream (the endpoint's streams for the shared session).
func (e *Endpoint) legacyPost(w http.ResponseWriter, r *http.Request) {
	msgs, _, ok := e.readMessages(w, r)
	if !ok {
		return
	}
	s := e.shared
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		id = r.Header.Get(HeaderSession)
	}
	if id != "" {
		if s = e.lookup(id); s == nil {
			e.noSession(w, id)
			return
		}
	}
	s.touch()
	w.WriteHeader(http.StatusAccepted)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	// The calls end with the session, and see what this request's
	// credentials granted (auth.Limit).
	ctx := valuesFirst{Context: s.ctx, values: r.Context()}
	for _, m := range msgs {
		e.dispatch(ctx, s, m, func(answer []byte) {
			if answer != nil { // nil: cancelled, so not answered
				e.out(s, answer)
			}
		})
	}
}

// streamablePost is POST on the endpoint: the answers in the body, as
// JSON, or as an SSE stream when the server sends something (progress, a
// request to the client) while no stream of the session is open.
func (e *Endpoint) streamablePost(w http.ResponseWriter, r *http.Request) {
	msgs, batch, ok := e.readMessages(w, r)
	if !ok {
		return
	}
	revision := r.Header.Get(HeaderProtocolVersion)
	if isStateless(revision) && !batch && len(msgs) == 1 {
		if refused := checkStateless(r.Header, revision, msgs[0]); refused != nil {
			writeRefusal(w, msgs[0].ID, refused)
			return
		}
	}
	var s *Session
	ctx := r.Context()
	if id := r.Header.Get(HeaderSession); id != "" {
		if s = e.lookup(id); s == nil {
			e.noSession(w, id)
			return
		}
	} else if initializes(msgs) {
		var err error
		if s, err = e.open("", false); err != nil {
			e.openFailed(w, err)
			return
		}
		w.Header().Set(HeaderSession, s.id)
	} else if isStateless(revision) && !batch && len(msgs) == 1 && msgs[0].isRequest() {
		var done func()
		var err error
		if s, ctx, done, err = e.openAlone(ctx); err != nil {
			e.openFailed(w, err)
			return
		}
		defer done()
	} else {
		// No session, no initialize: served on the shared session, as
		// scripts and the ObsiScripta bridge post tools/list and calls.
		s = e.shared
		if isStateless(revision) {
			e.cancelAlone(ctx, msgs)
		}
	}
	if batch {
		if refused := batchAllowed(revision, s, msgs); refused != nil {
			rpcRefuse(w, refused)
			return
		}
	}
	s.touch()
	side := NewStream(e.logger, e.opts.StreamBytes)
	s.addPost(side)
	defer s.removePost(side)
	// A batch's answers are gathered within the response limit in all, so
	// that memory stays within it too; a single answer is bounded alone.
	answers := protocol.NewBatchAnswers(len(msgs), e.batchBytes())
	var single []byte
	done := make(chan struct{})
	go func() {
		defer close(done)
		protocol.RunBatch(ctx, len(msgs), batch, answers, func(i int, reply func([]byte)) bool {
			m := msgs[i]
			if m.Method == "initialize" && m.isRequest() {
				s.noteRevision(m.Raw)
			}
			if !m.isRequest() {
				e.dispatch(ctx, s, m, nil)
				return false
			}
			e.dispatch(ctx, s, m, func(answer []byte) {
				// nil: cancelled, so not answered
				if answer != nil {
					answer = e.bounded(answer)
					e.opts.Monitor.Message("out", s.id, answer)
				}
				if !batch {
					single = answer
				}
				reply(answer)
			})
			return true
		})
	}()
	sse := e.waitAnswers(w, r, side, done)
	if sse == nil {
		return // the client went, or its stream was cut
	}
	out := single
	if batch {
		out = answers.Join()
	}
	if out == nil {
		if !sse.started {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	status := http.StatusOK
	if isLimitResponse(out) || batch && answers.Over() {
		status = http.StatusInternalServerError
		if batch {
			e.logger.Warn("a batch's answers are over the response limit", "endpoint", e.opts.Name, "messages", len(msgs), "limit", e.batchBytes())
		}
	}
	if sse.started {
		sse.write(Event{Name: "message", Data: out})
		return
	}
	if isStateless(revision) && !batch && status == http.StatusOK {
		status = cmp.Or(errorStatus(out), status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(out, '\n'))
}

// batchBytes bounds a batch's whole answer: the response limit, or the
// protocol's default where none is set.
func (e *Endpoint) batchBytes() int64 {
	if e.opts.MaxResponse > 0 {
		return e.opts.MaxResponse
	}
	return protocol.DefaultMaxBatchBytes
}

// batchAllowed checks that the revision in force has batches: the one the
// request's header names, else the one s negotiated, else (no session, no
// header) the spec's default for HTTP, 2025-03-26.
func batchAllowed(header string, s *Session, msgs []*Message) *rpcError {
	revision := header
	if revision == "" {
		revision = s.Revision()
	}
	raws := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		raws[i] = m.Raw
	}
	if err := protocol.BatchAllowed(revision, raws); err != nil {
		return &rpcError{-32600, "Invalid Request: " + err.Error()}
	}
	return nil
}

// postStream is a POST's answer turned into an SSE stream.
type postStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	broken  bool
}

func (p *postStream) write(ev Event) {
	if p.broken {
		return
	}
	if !p.started {
		p.started = true
		h := p.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		p.w.WriteHeader(http.StatusOK)
	}
	if _, err := p.w.Write(EncodeEvent(ev)); err != nil || p.rc.Flush() != nil {
		p.broken = true
	}
}

// waitAnswers waits for done, writing on the POST's stream (upgrading it
// to SSE) what the session's side stream takes meanwhile; nil when the
// client went or the stream broke.
func (e *Endpoint) waitAnswers(w http.ResponseWriter, r *http.Request, side *Stream, done <-chan struct{}) *postStream {
	p := &postStream{w: w, rc: http.NewResponseController(w)}
	for {
		select {
		case ev := <-side.Events():
			side.Sent(ev)
			p.write(ev)
		case <-done:
			// What was sent before the answers is queued already (the
			// protocol core delivers a call's notifications first).
			for {
				select {
				case ev := <-side.Events():
					side.Sent(ev)
					p.write(ev)
				default:
					if p.broken {
						return nil
					}
					return p
				}
			}
		case <-side.Done():
			why, _ := side.Killed()
			e.logger.Debug("a POST's stream was cut", "endpoint", e.opts.Name, "why", why)
			<-done
			return nil
		case <-r.Context().Done():
			<-done // the calls see the same context end
			return nil
		}
	}
}

func initializes(msgs []*Message) bool {
	for _, m := range msgs {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// streamableGet is GET with Mcp-Session-Id: the session's stream, for
// what the server sends of its own accord.
func (e *Endpoint) streamableGet(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(HeaderSession)
	s := e.lookup(id)
	if s == nil {
		e.noSession(w, id)
		return
	}
	if !e.takeConn(w) {
		return
	}
	defer e.releaseConn()
	st := NewStream(e.logger, e.opts.StreamBytes)
	if !s.addStream(st, true) {
		e.duplicate(w, id)
		return
	}
	defer s.removeStream(st)
	e.serveStream(w, r, st, s.id)
}

// streamableDelete is DELETE: the session ends.
func (e *Endpoint) streamableDelete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(HeaderSession)
	if id == "" {
		Refuse(w, http.StatusBadRequest, "NO_SESSION", "DELETE needs the Mcp-Session-Id header of the session to end", "")
		return
	}
	s := e.lookup(id)
	if s == nil {
		e.noSession(w, id)
		return
	}
	e.end(s)
	w.WriteHeader(http.StatusOK)
}

// dispatch hands a client's message to the peer; reply (nil for anything
// but a request) gets the answer.
func (e *Endpoint) dispatch(ctx context.Context, s *Session, m *Message, reply func([]byte)) {
	e.opts.Monitor.Message("in", s.id, m.Raw)
	if reply == nil {
		reply = func([]byte) {}
	}
	e.peer.Send(ctx, s, m, reply)
}

func (e *Endpoint) noSession(w http.ResponseWriter, id string) {
	if e.wasEvicted(id) {
		Refuse(w, http.StatusNotFound, "SESSION_EVICTED", fmt.Sprintf("session %q was closed to make room for newer ones: at most %d are kept (%s), and it was unused the longest", id, e.opts.MaxSessions, e.opts.SessionsSetting),
			"Open a new one: initialize without Mcp-Session-Id, or GET for an HTTP+SSE stream.")
		return
	}
	Refuse(w, http.StatusNotFound, "SESSION_NOT_FOUND", fmt.Sprintf("session %q is not open here (it ended, or the server restarted)", id), "Open a new one: initialize without Mcp-Session-Id, or GET for an HTTP+SSE stream.")
}

// openFailed answers a request whose session could not be opened.
func (e *Endpoint) openFailed(w http.ResponseWriter, err error) {
	if errors.Is(err, errTooMany) {
		w.Header().Set("Retry-After", "5")
		Refuse(w, http.StatusServiceUnavailable, "TOO_MANY_SESSIONS", fmt.Sprintf("all %d sessions (%s) are busy: each has a stream open or a call waiting", e.opts.MaxSessions, e.opts.SessionsSetting),
			"Close a session (DELETE, or end its stream), or raise "+e.opts.SessionsSetting+".")
		return
	}
	Refuse(w, http.StatusInternalServerError, "SESSION_FAILED", "the server could not open a session: "+err.Error(), "")
}

func (e *Endpoint) duplicate(w http.ResponseWriter, id string) {
	Refuse(w, http.StatusConflict, "DUPLICATE_SESSION", fmt.Sprintf("session %q already has a stream open", id), "Close the other stream first, or open a new session.")
}

// takePost takes a POST's place, waiting up to PostWait, or answers 503.
func (e *Endpoint) takePost(w http.ResponseWriter, r *http.Request) bool {
	select {
	case e.posts <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(e.opts.PostWait)
	defer t.Stop()
	select {
	case e.posts <- struct{}{}:
		return true
	case <-r.Context().Done():
		return false
	case <-t.C:
		w.Header().Set("Retry-After", "5")
		Refuse(w, http.StatusServiceUnavailable, "BUSY", fmt.Sprintf("all %d places for requests are taken", cap(e.posts)), "Try again shortly.")
		return false
	}
}

// takeConn takes a connection slot, or answers 503.
func (e *Endpoint) takeConn(w http.ResponseWriter) bool {
	if e.opts.Conns == nil {
		return true
	}
	select {
	case e.opts.Conns <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", "5")
		Refuse(w, http.StatusServiceUnavailable, "TOO_MANY_CONNECTIONS",
			fmt.Sprintf("all %d connections (%s) are in use", cap(e.opts.Conns), e.opts.ConnsSetting), "Close a stream, or raise "+e.opts.ConnsSetting+".")
		return false
	}
}

func (e *Endpoint) releaseConn() {
	if e.opts.Conns != nil {
		<-e.opts.Conns
	}
}

// readMessages reads a POST's messages; false when it answered already
// (413, or 400 for a body that is not JSON-RPC).
func (e *Endpoint) readMessages(w http.ResponseWriter, r *http.Request) ([]*Message, bool, bool) {
	body, ok := e.readBody(w, r)
	if !ok {
		return nil, false, false
	}
	msgs, batch, err := parseBody(body, e.opts.MaxBatch)
	if err != nil {
		rpcRefuse(w, err)
		return nil, false, false
	}
	if e.opts.Screen != nil && e.opts.Screen(w, r, msgs) {
		return nil, false, false
	}
	return msgs, batch, true
}

// readBody reads a POST body within MaxRequest; false when it answered
// already (413, 400).
func (e *Endpoint) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := e.opts.MaxRequest
	if r.ContentLength > limit {
		e.tooLarge(w, r.ContentLength)
		return nil, false
	}
	// A body sent slowly cannot hold its POST's place past BodyTimeout.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(e.opts.BodyTimeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		// The deadline stays: the server must not wait for the rest of
		// the body before answering either.
		w.Header().Set("Connection", "close")
		Refuse(w, http.StatusBadRequest, "BAD_REQUEST", "the request body could not be read within "+e.opts.BodyTimeout.String()+": "+err.Error(), "Send the body at once.")
		return nil, false
	}
	_ = rc.SetReadDeadline(time.Time{})
	if int64(len(body)) > limit {
		e.tooLarge(w, -1)
		return nil, false
	}
	return body, true
}

func (e *Endpoint) tooLarge(w http.ResponseWriter, size int64) {
	what := "the request body is over"
	if size >= 0 {
		what = fmt.Sprintf("the request body (%d bytes) is over", size)
	}
	// The rest of the body is not read: the connection cannot be reused.
	w.Header().Set("Connection", "close")
	Refuse(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", fmt.Sprintf("%s the limit of %d bytes (limits.max_request)", what, e.opts.MaxRequest), "Send less at once, or raise limits.max_request.")
}

// rpcRefuse answers a body that is not JSON-RPC: 400 with a JSON-RPC error.
func rpcRefuse(w http.ResponseWriter, e *rpcError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(append(protocol.ErrorAnswer(nil, e.code, e.msg), '\n'))
}

// valuesFirst is a context that ends as its Context does and looks values
// up in values first: a call sent through a 202 lasts as long as its
// session, and carries what its own request was allowed.
type valuesFirst struct {
	context.Context
	values context.Context
}

func (c valuesFirst) Value(key any) any {
	if v := c.values.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}
