package gateway

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The two transports of /mcp/{namespace}, on one session table:
//
//   - HTTP+SSE, the contract's (and MCP 2024-11-05's): GET opens a stream
//     that starts with an `endpoint` event naming the message URL with a
//     session id; POST …/message answers 202 at once and the answer comes
//     on the stream. A POST naming no session goes to the namespace's
//     shared session, whose answers go to every stream of the namespace.
//   - MCP Streamable HTTP: POST answers in its body, initialize opens a
//     session (Mcp-Session-Id), GET with the id opens its stream, DELETE
//     ends it.

// legacyStream is GET /mcp/{ns}: an SSE stream for a new session, or for
// the one `?sessionId=` names when it has no stream yet.
func (g *Gateway) legacyStream(w http.ResponseWriter, r *http.Request, ns *namespace) {
	id := r.URL.Query().Get("sessionId")
	if id != "" && !sessionID.MatchString(id) {
		g.refuse(w, http.StatusBadRequest, "BAD_SESSION_ID", "sessionId must be 1 to 128 letters, digits or . _ ~ -", "Leave it out to get a new session.")
		return
	}
	if !g.takeConn(w) {
		return
	}
	defer g.releaseConn()
	st := newStream(g.logger)
	s := ns.lookup(id)
	if id != "" && s != nil {
		if !s.addStream(st, true) {
			g.duplicate(w, id)
			return
		}
	} else {
		var err error
		if s, err = ns.open(id, true); err != nil {
			if errors.Is(err, errDuplicate) {
				g.duplicate(w, id)
			} else {
				g.refuse(w, http.StatusInternalServerError, "NAMESPACE_FAILED", "the namespace could not open a session: "+err.Error(), "")
			}
			return
		}
		s.addStream(st, true)
	}
	ns.shared.addStream(st, false)
	defer func() {
		ns.shared.removeStream(st)
		s.removeStream(st)
		if s.legacy {
			ns.end(s)
		}
	}()
	endpoint := "/mcp/" + ns.name + "/message?sessionId=" + s.id
	g.serveStream(w, r, st, ns.name, s.id, event{name: "endpoint", data: []byte(endpoint)})
}

// legacyPost is POST /mcp/{ns}/message: 202 at once, the answers on the
// session's stream (the namespace's streams for the shared session).
func (g *Gateway) legacyPost(w http.ResponseWriter, r *http.Request, ns *namespace) {
	body, ok := g.readBody(w, r)
	if !ok {
		return
	}
	msgs, _, err := parseBody(body, r.Header.Get(headerProtocolVersion))
	if err != nil {
		rpcRefuse(w, err)
		return
	}
	s := ns.shared
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		id = r.Header.Get(headerSession)
	}
	if id != "" {
		if s = ns.lookup(id); s == nil {
			g.noSession(w, id)
			return
		}
	}
	s.touch()
	w.WriteHeader(http.StatusAccepted)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	for _, m := range msgs {
		g.dispatch(s.ctx, s, m, func(answer []byte) {
			if answer != nil { // nil: cancelled, so not answered
				g.out(s, answer)
			}
		})
	}
}

// streamablePost is POST /mcp/{ns}: the answers in the body, as JSON.
func (g *Gateway) streamablePost(w http.ResponseWriter, r *http.Request, ns *namespace) {
	body, ok := g.readBody(w, r)
	if !ok {
		return
	}
	msgs, batch, perr := parseBody(body, r.Header.Get(headerProtocolVersion))
	if perr != nil {
		rpcRefuse(w, perr)
		return
	}
	var s *session
	if id := r.Header.Get(headerSession); id != "" {
		if s = ns.lookup(id); s == nil {
			g.noSession(w, id)
			return
		}
	} else if initializes(msgs) {
		var err error
		if s, err = ns.open("", false); err != nil {
			g.refuse(w, http.StatusInternalServerError, "NAMESPACE_FAILED", "the namespace could not open a session: "+err.Error(), "")
			return
		}
		w.Header().Set(headerSession, s.id)
	} else {
		// No session, no initialize: served on the shared session, as
		// scripts and the ObsiScripta bridge post tools/list and calls.
		s = ns.shared
	}
	s.touch()
	answers := make([][]byte, 0, len(msgs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range msgs {
		if !m.isRequest() {
			g.dispatch(r.Context(), s, m, nil)
			continue
		}
		wg.Add(1)
		g.dispatch(r.Context(), s, m, func(answer []byte) {
			if answer != nil { // nil: cancelled, so not answered
				mu.Lock()
				answers = append(answers, answer)
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	status := http.StatusOK
	for i, a := range answers {
		b := g.bounded(a)
		if isLimitResponse(b) {
			status = http.StatusInternalServerError
		}
		answers[i] = b
		g.mon.message("out", ns.name, s.id, b)
	}
	out := answers[0]
	if batch {
		out = append(append([]byte{'['}, bytes.Join(answers, []byte{','})...), ']')
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(out, '\n'))
}

func initializes(msgs []*message) bool {
	for _, m := range msgs {
		if m.method == "initialize" {
			return true
		}
	}
	return false
}

// streamableGet is GET /mcp/{ns} with Mcp-Session-Id: the session's
// stream, for what the server sends of its own accord.
func (g *Gateway) streamableGet(w http.ResponseWriter, r *http.Request, ns *namespace) {
	id := r.Header.Get(headerSession)
	s := ns.lookup(id)
	if s == nil {
		g.noSession(w, id)
		return
	}
	if !g.takeConn(w) {
		return
	}
	defer g.releaseConn()
	st := newStream(g.logger)
	if !s.addStream(st, true) {
		g.duplicate(w, id)
		return
	}
	defer s.removeStream(st)
	g.serveStream(w, r, st, ns.name, s.id)
}

// streamableDelete is DELETE /mcp/{ns}: the session ends.
func (g *Gateway) streamableDelete(w http.ResponseWriter, r *http.Request, ns *namespace) {
	id := r.Header.Get(headerSession)
	if id == "" {
		g.refuse(w, http.StatusBadRequest, "NO_SESSION", "DELETE needs the Mcp-Session-Id header of the session to end", "")
		return
	}
	s := ns.lookup(id)
	if s == nil {
		g.noSession(w, id)
		return
	}
	ns.end(s)
	w.WriteHeader(http.StatusOK)
}

// dispatch hands a client's message to the namespace; reply (nil for
// anything but a request) gets the answer.
func (g *Gateway) dispatch(ctx context.Context, s *session, m *message, reply func([]byte)) {
	g.mon.message("in", s.ns.name, s.id, m.raw)
	if reply == nil {
		reply = func([]byte) {}
	}
	s.ns.peer.send(ctx, s, m, reply)
}

func (g *Gateway) noSession(w http.ResponseWriter, id string) {
	g.refuse(w, http.StatusNotFound, "SESSION_NOT_FOUND", "session "+quoteName(id)+" is not open in this namespace (it ended, or the gateway restarted)", "Open a new one: GET /mcp/{namespace}, or initialize without Mcp-Session-Id.")
}

func (g *Gateway) duplicate(w http.ResponseWriter, id string) {
	g.refuse(w, http.StatusConflict, "DUPLICATE_SESSION", "session "+quoteName(id)+" already has a stream open", "Close the other stream first, or open a new session.")
}

// takeConn takes a connection slot (limits.max_connections), or answers
// 503.
func (g *Gateway) takeConn(w http.ResponseWriter) bool {
	select {
	case g.conns <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", "5")
		g.refuse(w, http.StatusServiceUnavailable, "TOO_MANY_CONNECTIONS",
			"all "+strconv.Itoa(g.cfg.Limits.MaxConnections)+" connections (limits.max_connections) are in use", "Close a stream, or raise limits.max_connections.")
		return false
	}
}

func (g *Gateway) releaseConn() { <-g.conns }

// serveStream writes a stream's events until the client goes, the session
// ends or the gateway stops, with a ping every ping_interval.
func (g *Gateway) serveStream(w http.ResponseWriter, r *http.Request, st *stream, ns, sessID string, first ...event) {
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		g.refuse(w, http.StatusServiceUnavailable, "STOPPING", "the gateway is stopping", "")
		return
	}
	g.streams[st] = struct{}{}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.streams, st)
		g.mu.Unlock()
	}()
	g.mon.connection("connected", ns, sessID)
	defer g.mon.connection("disconnected", ns, sessID)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(ev event) bool {
		if _, err := w.Write(sseEvent(ev)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for _, ev := range first {
		if !write(ev) {
			return
		}
	}
	if len(first) == 0 {
		_ = rc.Flush()
	}
	ping := time.NewTicker(g.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-st.done:
			g.logger.Debug("stream ended", "namespace", ns, "session", sessID, "why", st.why)
			return
		case ev := <-st.ch:
			if !write(ev) {
				return
			}
		case now := <-ping.C:
			if !write(pingEvent(now)) {
				return
			}
		}
	}
}

// sseEvent frames one event; data with line breaks takes several data
// lines, as SSE joins them back.
func sseEvent(ev event) []byte {
	var b bytes.Buffer
	b.WriteString("event: ")
	b.WriteString(ev.name)
	b.WriteByte('\n')
	for _, line := range strings.Split(string(ev.data), "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func pingEvent(now time.Time) event {
	return event{name: "ping", data: []byte(`{"time":"` + now.UTC().Format(time.RFC3339) + `"}`)}
}
