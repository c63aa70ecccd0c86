package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Sink delivers one message the server sends of its own accord (a
// notification, or a request to the client), as JSON without a line end.
// An error means the client is gone.
type Sink func(msg []byte) error

// SessionOptions configure a Session.
type SessionOptions struct {
	// Asks says the transport carries requests to the client (elicitation,
	// roots) and brings their answers back to Receive.
	Asks bool
	// Lost is called once, when the Sink fails.
	Lost func(error)
}

// Session is one client connection as the core sees it: an mcp-go client
// session (notifications, log level, client info, negotiated revision) and
// the requests read and not yet answered.
type Session struct {
	core   *Core
	id     string
	sink   Sink
	opts   SessionOptions
	mcp    server.ClientSession // s, or s as an askingSession
	notes  chan mcp.JSONRPCNotification
	outbox chan []byte
	// flushes asks the pump to deliver every notification already sent,
	// before an answer goes out.
	flushes chan chan struct{}
	done    chan struct{}
	closing sync.Once
	lost    atomic.Bool

	initialized atomic.Bool
	level       atomic.Value // mcp.LoggingLevel
	info        atomic.Value // mcp.Implementation
	caps        atomic.Value // mcp.ClientCapabilities
	revision    atomic.Value // string

	mu    sync.Mutex
	calls map[string][]*call // by id key: a client may reuse an id
	total int
	idle  chan struct{} // closed while nothing is pending
	asks  map[string]chan *envelope
	asked atomic.Int64
}

// call is one request, from the moment it is read until it is answered.
type call struct {
	key       string
	listen    bool // a subscriptions/listen
	ctx       context.Context
	cancel    context.CancelFunc
	cancelled atomic.Bool
}

// Open starts a session with id (unique among the server's sessions);
// what the server sends of its own accord goes to sink. Close it when the
// client goes.
func (c *Core) Open(id string, sink Sink, opts SessionOptions) (*Session, error) {
	idle := make(chan struct{})
	close(idle)
	s := &Session{
		core: c, id: id, sink: sink, opts: opts,
		notes:   make(chan mcp.JSONRPCNotification, 100),
		outbox:  make(chan []byte),
		flushes: make(chan chan struct{}),
		done:    make(chan struct{}),
		calls:   map[string][]*call{},
		idle:    idle,
		asks:    map[string]chan *envelope{},
	}
	s.mcp = s
	if opts.Asks {
		s.mcp = askingSession{s}
	}
	if err := c.srv.RegisterSession(context.Background(), s.mcp); err != nil {
		return nil, err
	}
	go s.pump()
	return s, nil
}

// Close ends the session: its running calls are cancelled, and nothing
// more is delivered to its Sink.
func (s *Session) Close() {
	s.closing.Do(func() {
		s.core.srv.UnregisterSession(context.Background(), s.id)
		s.mu.Lock()
		for _, cs := range s.calls {
			for _, c := range cs {
				c.cancel()
			}
		}
		s.mu.Unlock()
		close(s.done)
	})
}

// Context is ctx carrying the session, as mcp-go's handlers expect.
func (s *Session) Context(ctx context.Context) context.Context {
	return s.core.srv.WithContext(ctx, s.mcp)
}

// Pending reports how many requests await their answer.
func (s *Session) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Idle is closed once nothing is pending (at the time of the call).
func (s *Session) Idle() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idle
}

// Receive handles one message from the client: a JSON-RPC request,
// notification or answer, or a batch of them. reply is called exactly
// once: with the answer, or with nil when none is due (a notification, an
// answer, a cancelled request, a batch of those). Notifications are handled
// before Receive returns, so a cancellation read after a request always
// finds it; requests run in the background. ctx bounds the requests (a
// transport ends it when its client goes).
func (s *Session) Receive(ctx context.Context, raw []byte, reply func([]byte)) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		s.batch(ctx, raw, reply)
		return
	}
	s.one(ctx, raw, reply)
}

func (s *Session) batch(ctx context.Context, raw []byte, reply func([]byte)) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		_, bad := parse(raw)
		if bad == nil {
			bad = ErrorAnswer(nil, mcp.INVALID_REQUEST, "Invalid Request: a batch must be an array of JSON-RPC messages")
		}
		reply(bad)
		return
	}
	revision, _ := ctx.Value(revisionKey{}).(string)
	if revision == "" {
		revision = s.ProtocolVersion()
	}
	err := BatchSize(len(items), s.core.opts.MaxBatch)
	if err == nil {
		err = BatchAllowed(revision, items)
	}
	if err != nil {
		reply(ErrorAnswer(nil, mcp.INVALID_REQUEST, "Invalid Request: "+err.Error()))
		return
	}
	// The batch is pending until its one answer is delivered, after every
	// request in it has finished.
	s.hold()
	// Items are handed on here, in order, as single messages are (a
	// cancellation in the batch finds the request before it); their
	// answers are gathered within the batch's bound, and at most
	// MaxBatch of them are under way.
	answers := NewBatchAnswers(len(items), s.core.opts.MaxBatchBytes)
	var wg sync.WaitGroup
	for i, item := range items {
		wg.Add(1)
		s.one(ctx, item, func(b []byte) { answers.Add(i, b); wg.Done() })
	}
	go func() {
		defer s.release()
		wg.Wait()
		reply(answers.Join())
	}()
}

func (s *Session) one(ctx context.Context, raw []byte, reply func([]byte)) {
	if len(raw) == 0 {
		reply(ErrorAnswer(nil, mcp.INVALID_REQUEST, "Invalid Request: the message is empty"))
		return
	}
	e, bad := parse(raw)
	if bad != nil {
		reply(bad)
		return
	}
	key := idKey(e.ID)
	switch {
	case e.Method == nil && key != "" && (e.Result != nil || e.Error != nil):
		s.answered(key, e)
		reply(nil)
	case e.Method == nil:
		reply(ErrorAnswer(validID(e.ID), mcp.INVALID_REQUEST, `Invalid Request: the message has no "method"`))
	case e.ID == nil:
		s.notification(ctx, *e.Method, e.Params, raw)
		reply(nil)
	case key == "":
		reply(ErrorAnswer(nil, mcp.INVALID_REQUEST, `Invalid Request: "id" must be a string or a number`))
	default:
		method := *e.Method
		if s.core.prepare != nil && method != string(mcp.MethodInitialize) && method != string(mcp.MethodPing) {
			s.core.prepared.Store(true)
			s.core.prepare() // waits if the background run is under way
		}
		if method == string(mcp.MethodInitialize) && s.ProtocolVersion() == "" {
			// The revision the client asks for rules what follows at
			// once (batches), not only once initialize has run: a batch
			// sent right behind it was taken as from no known revision.
			var p struct {
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if json.Unmarshal(raw, &p) == nil && Supported(p.Params.ProtocolVersion) {
				s.SetProtocolVersion(p.Params.ProtocolVersion)
			}
		}
		// listen is set before the call is registered: EndListens,
		// from the transport's goroutine, reads it while a batch's
		// items begin on the batch's own.
		c := s.begin(ctx, key, method == string(mcp.MethodSubscriptionsListen))
		go s.run(c, method, e.ID, raw, reply)
	}
}

func validID(id json.RawMessage) json.RawMessage {
	if idKey(id) == "" {
		return nil
	}
	return id
}

func (s *Session) notification(ctx context.Context, method string, params, raw []byte) {
	if method == string(mcp.MethodNotificationCancelled) {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil {
			s.cancel(idKey(p.RequestID))
		}
		return
	}
	defer func() {
		if r := recover(); r != nil {
			s.core.opts.Logger.Error("notification handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	s.core.srv.HandleMessage(s.Context(ctx), raw)
}

func (s *Session) begin(ctx context.Context, key string, listen bool) *call {
	cctx, cancel := context.WithCancel(ctx)
	c := &call{key: key, ctx: cctx, cancel: cancel, listen: listen}
	s.hold()
	s.mu.Lock()
	s.calls[key] = append(s.calls[key], c)
	s.mu.Unlock()
	return c
}

// hold counts one more answer pending; release counts it delivered.
func (s *Session) hold() {
	s.core.running.Add(1)
	s.mu.Lock()
	if s.total++; s.total == 1 {
		s.idle = make(chan struct{})
	}
	s.mu.Unlock()
}

func (s *Session) release() {
	s.mu.Lock()
	if s.total--; s.total == 0 {
		close(s.idle)
	}
	s.mu.Unlock()
	s.core.running.Done()
}

func (s *Session) finish(c *call) {
	c.cancel()
	s.mu.Lock()
	cs := s.calls[c.key]
	for i, x := range cs {
		if x == c {
			cs = append(cs[:i], cs[i+1:]...)
			break
		}
	}
	if len(cs) == 0 {
		delete(s.calls, c.key)
	} else {
		s.calls[c.key] = cs
	}
	s.mu.Unlock()
	s.release()
}

// EndListens ends the session's subscriptions/listen requests, each
// answered as when its client stops listening. A transport whose input
// ended calls it: a listen lasts as long as its client listens, so
// waiting for it to finish would hold the exit until the client kills
// the process.
func (s *Session) EndListens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cs := range s.calls {
		for _, c := range cs {
			if c.listen {
				c.cancel()
			}
		}
	}
}

// cancel stops the requests with this id: a running call sees its context
// end, a queued one never starts, and neither is answered.
func (s *Session) cancel(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls[key] {
		c.cancelled.Store(true)
		c.cancel()
	}
}

// run answers one request.
func (s *Session) run(c *call, method string, id json.RawMessage, raw []byte, reply func([]byte)) {
	defer s.finish(c)
	if bounded(method) {
		s.core.waiting.Add(1)
		select {
		case s.core.workers <- struct{}{}:
			defer func() { <-s.core.workers }()
		case <-c.ctx.Done():
		}
		s.core.waiting.Add(-1)
		// A call cancelled while it waited never starts, even when a
		// worker came free at the same moment.
		if c.ctx.Err() != nil {
			s.core.opts.Logger.Debug("request cancelled before it started; nothing was done", "session", s.id, "method", method, "id", string(id))
			if c.cancelled.Load() {
				reply(nil)
			} else {
				reply(ErrorAnswer(id, mcp.INTERNAL_ERROR, "the call was cancelled before it started; nothing was done"))
			}
			return
		}
	}
	ctx := c.ctx
	if t := s.core.opts.CallTimeout; t > 0 && method != string(mcp.MethodSubscriptionsListen) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	out := s.core.handle(s.Context(ctx), id, raw)
	if c.cancelled.Load() {
		reply(nil) // MCP: the receiver of a cancellation does not answer
		return
	}
	s.flush()
	reply(out)
	s.core.startPrepare()
}
