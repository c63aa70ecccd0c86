// Package wire mends mcp-go's stdio transport without forking it, by
// wrapping the streams handed to StdioServer.Listen (mcp-go-notes.md §1, §2):
//
//   - Input withholds end-of-file until every request already read has been
//     answered. mcp-go cancels running calls and drops queued ones at EOF, so
//     a client that writes its requests and closes stdin would lose answers.
//   - Input passes on a last line that lacks its '\n' (mcp-go drops it),
//     skips blank lines (mcp-go answers them with id-less parse errors), and
//     treats the `exit` notification like end of input.
//   - Output rewrites the error response of a failed tools/call to carry our
//     code and data. mcp-go turns every handler error into -32603; OnError, a
//     hook, records our typed error by request id, and Output swaps it in.
//   - Output drops the response to a request the client cancelled, as MCP
//     asks, and serialises every write, including those mcp-go makes without
//     its own lock. Cancelled remembers cancellations of calls still queued,
//     which mcp-go ignores, so the server can replay them.
//   - A client that goes away (a failed write, or output closed at end of
//     input or while pending calls drain) stops the server at once instead
//     of after every pending call
//     (OnDisconnect); work the first answer does not need can wait until it
//     is written (Defer).
//
// Nothing here knows about tools or Obsidian.
package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Session tracks one stdio connection's requests from the moment they are
// read until their response is written.
type Session struct {
	logger *slog.Logger
	// drainTimeout bounds how long end of input waits for answers, so a
	// request that never completes cannot keep the process alive forever.
	drainTimeout time.Duration

	mu        sync.Mutex
	pending   map[string]int // requests read and not yet answered, by id
	total     int
	idle      chan struct{} // closed while nothing is pending
	errs      map[string]*errors.Error
	results   map[string]substitute
	cancelled map[string]bool

	// stop and gone are OnDisconnect's; lost is set once the client is.
	stop func()
	gone func() bool
	lost atomic.Bool

	// prepare is the work Defer put off; prepared is set once it started.
	prepare  func()
	prepared atomic.Bool
}

// New returns a session. drainTimeout bounds the wait at end of input.
func New(logger *slog.Logger, drainTimeout time.Duration) *Session {
	idle := make(chan struct{})
	close(idle)
	return &Session{
		logger:       logger,
		drainTimeout: drainTimeout,
		pending:      map[string]int{},
		idle:         idle,
		errs:         map[string]*errors.Error{},
		results:      map[string]substitute{},
		cancelled:    map[string]bool{},
	}
}

// OnError is an mcp-go OnError hook. It fires inside HandleMessage, before
// the error response is written, and records our typed error for Output.
func (s *Session) OnError(_ context.Context, id any, method mcp.MCPMethod, _ any, err error) {
	var e *errors.Error
	if method != mcp.MethodToolsCall && method != mcp.MethodResourcesRead || !errors.As(err, &e) {
		return
	}
	if key := idKey(id); key != "" {
		s.mu.Lock()
		s.errs[key] = e
		s.mu.Unlock()
	}
}

// Answer makes result the answer to request id in place of the response
// mcp-go is about to write for it (call it from a hook).
// The stdio bridge answers a call to a tool it does not have with an
// isError result, as its contract asks, where mcp-go writes -32602.
func (s *Session) Answer(id any, result json.RawMessage) { s.substitute(id, "result", result) }

// Reject makes errObj (a JSON-RPC error object) the answer to request id in
// place of mcp-go's: the bridge passes on the server's own error.
func (s *Session) Reject(id any, errObj json.RawMessage) { s.substitute(id, "error", errObj) }

// substitute is an answer that replaces mcp-go's error response.
type substitute struct {
	member string // "result" or "error"
	value  json.RawMessage
}

func (s *Session) substitute(id any, member string, value json.RawMessage) {
	if key := idKey(id); key != "" {
		s.mu.Lock()
		s.results[key] = substitute{member, value}
		s.mu.Unlock()
	}
}

// Defer puts work off the start-up path: prepare runs once, in the
// background as soon as the first answer (normally initialize's) is written,
// or before Input passes on the first request other than initialize and
// ping, whichever comes first; that request, and everything read after it,
// waits for prepare to finish. A server can so answer initialize before
// building what other requests need (the tool list). Call it before the
// first Read.
func (s *Session) Defer(prepare func()) { s.prepare = sync.OnceFunc(prepare) }

// startPrepare runs the deferred work in the background, once.
func (s *Session) startPrepare() {
	if s.prepare != nil && !s.prepared.Swap(true) {
		go s.prepare()
	}
}

// OnDisconnect handles a client that goes away (it crashed or closed the
// connection) instead of just ending its input: stop is called as soon as
// an answer cannot be written, or when, after input has ended with requests
// pending, gone reports that nobody reads the output any more (asked at
// once and then every goneCheck; gone may be nil). Answering pending
// requests would then be pointless; stop cancels them, which stops their
// CLI processes. Call it before the first Read.
func (s *Session) OnDisconnect(stop func(), gone func() bool) { s.stop, s.gone = stop, gone }

// Lost reports whether the client went away (see OnDisconnect).
func (s *Session) Lost() bool { return s.lost.Load() }

func (s *Session) lose(why string) {
	if s.lost.Swap(true) {
		return
	}
	s.logger.Warn("client disconnected; cancelling its requests", "why", why, "pending", s.Pending())
	if s.stop != nil {
		s.stop()
	}
}

// Cancelled reports whether the client cancelled request id (as mcp-go
// hands it to hooks) while it was pending.
func (s *Session) Cancelled(id any) bool {
	key := idKey(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	return key != "" && s.cancelled[key]
}

// Pending reports how many requests await their response.
func (s *Session) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func (s *Session) begin(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[key]++
	if s.total++; s.total == 1 {
		s.idle = make(chan struct{})
	}
}

// finish marks one request with this id answered; unknown ids are ignored.
func (s *Session) finish(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.errs, key)
	delete(s.results, key)
	n, ok := s.pending[key]
	if !ok {
		return
	}
	if n <= 1 {
		delete(s.pending, key)
		delete(s.cancelled, key)
	} else {
		s.pending[key] = n - 1
	}
	if s.total--; s.total == 0 {
		close(s.idle)
	}
}

func (s *Session) cancel(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[key] > 0 {
		s.cancelled[key] = true
	}
}

// drain waits until nothing is pending, ctx ends, or drainTimeout passes.
func (s *Session) drain(ctx context.Context) {
	timer := time.NewTimer(s.drainTimeout)
	defer timer.Stop()
	s.mu.Lock()
	idle, n := s.idle, s.total
	s.mu.Unlock()
	if n > 0 && s.gone != nil && s.gone() {
		s.lose("input ended and the output is closed")
		return
	}
	// A client may close its input a moment before its output, so the
	// check above can come too early: keep checking while waiting, or a
	// client that is gone would keep a call running until it times out.
	var check <-chan time.Time
	if n > 0 {
		s.logger.Debug("input closed; answering pending requests before exiting", "pending", n)
		if s.gone != nil {
			t := time.NewTicker(goneCheck)
			defer t.Stop()
			check = t.C
		}
	}
	for {
		select {
		case <-idle:
			return
		case <-ctx.Done():
			return
		case <-timer.C:
			s.logger.Warn("input closed; gave up waiting for pending requests", "pending", s.Pending(), "waited", s.drainTimeout)
			return
		case <-check:
			if s.gone() {
				s.lose("the output closed while pending requests were answered after input ended")
				return
			}
		}
	}
}

// goneCheck is how often drain asks whether the client still reads.
const goneCheck = 200 * time.Millisecond

// Input wraps the client's stream for StdioServer.Listen. ctx ends the wait
// for pending answers at end of input (a signal, for instance).
func (s *Session) Input(ctx context.Context, r io.Reader) io.Reader {
	return &input{s: s, ctx: ctx, br: bufio.NewReaderSize(r, 64<<10)}
}

type input struct {
	s    *Session
	ctx  context.Context
	br   *bufio.Reader
	buf  []byte // the current line, handed out by Read
	done bool   // no more lines will be admitted
}

func (in *input) Read(p []byte) (int, error) {
	for len(in.buf) == 0 {
		if in.done {
			in.s.drain(in.ctx)
			return 0, io.EOF
		}
		line, err := in.br.ReadBytes('\n')
		if err != nil {
			if err != io.EOF {
				in.s.logger.Warn("reading input", "err", err)
			}
			in.done = true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue // blank line, or nothing before EOF
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n') // a last line without its newline still counts
		}
		// A line that is not JSON gets mcp-go's id-less parse error, even if
		// it starts like a request: counting it would leave a request that
		// no answer can settle, and end of input would wait for it in vain
		// (found by FuzzServe: a request line with a stray byte at its end).
		f, ok := peek(line)
		ok = ok && json.Valid(line)
		switch {
		case ok && f.method == "exit" && f.id == "":
			in.done = true // graceful shutdown, as at end of input
			continue
		case ok && f.isRequest():
			in.s.begin(f.id)
			if in.s.prepare != nil && f.method != string(mcp.MethodInitialize) && f.method != string(mcp.MethodPing) {
				in.s.prepared.Store(true)
				in.s.prepare() // waits if the background run is under way
			}
		case ok && f.method == string(mcp.MethodNotificationCancelled) && f.cancelled != "":
			in.s.cancel(f.cancelled)
		}
		in.buf = line
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// Output wraps the stream StdioServer.Listen writes to. mcp-go writes each
// message with one Write call, which this relies on.
func (s *Session) Output(w io.Writer) io.Writer { return &output{s: s, w: w} }

type output struct {
	s  *Session
	mu sync.Mutex
	w  io.Writer
}

func (o *output) Write(p []byte) (int, error) {
	f, ok := peek(p)
	key := ""
	if ok && f.isResponse() {
		key = f.id
	}
	msg := p
	if key != "" {
		o.s.mu.Lock()
		cancelled, e, sub := o.s.cancelled[key], o.s.errs[key], o.s.results[key]
		o.s.mu.Unlock()
		if cancelled {
			// MCP: the receiver of a cancellation should not answer.
			o.s.finish(key)
			return len(p), nil
		}
		switch {
		case sub.value != nil:
			msg = substituteLine(f.rawID, sub)
		case f.hasError && e != nil:
			msg = errorLine(f.rawID, e)
		}
	}
	o.mu.Lock()
	_, err := o.w.Write(msg)
	o.mu.Unlock()
	if key != "" {
		o.s.finish(key)
		o.s.startPrepare()
	}
	if err != nil {
		o.s.lose("writing an answer failed: " + err.Error())
		return 0, err
	}
	return len(p), nil
}

// substituteLine renders a JSON-RPC response with sub as its result or
// error, members in the order mcp-go writes them.
func substituteLine(id json.RawMessage, sub substitute) []byte {
	var value bytes.Buffer
	if err := json.Compact(&value, sub.value); err != nil { // a caller's bug
		return errorLine(id, errors.E(errors.Internal, "the bridge made an answer that is not JSON"))
	}
	line := make([]byte, 0, len(id)+value.Len()+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"`+sub.member+`":`...)
	line = append(line, value.Bytes()...)
	return append(line, "}\n"...)
}

// errorResponse is a JSON-RPC error response.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   ErrorObject     `json:"error"`
}

// errorLine renders a JSON-RPC error response carrying e.
func errorLine(id json.RawMessage, e *errors.Error) []byte {
	resp := errorResponse{mcp.JSONRPC_VERSION, id, Object(e)}
	line, err := json.Marshal(resp)
	if err != nil {
		// Data holds strings, numbers and slices of them, so this is not
		// expected; still, never let a detail cost the client its answer.
		resp.Error.Data = map[string]any{"errorCode": resp.Error.Data["errorCode"], "hint": resp.Error.Data["hint"]}
		line, _ = json.Marshal(resp)
	}
	return append(line, '\n')
}

// ErrorObject is a JSON-RPC error object.
type ErrorObject struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// Object renders e as a JSON-RPC error object.
func Object(e *errors.Error) ErrorObject {
	return ErrorObject{Code: int(e.Code()), Message: e.Message, Data: e.Data()}
}

// Swap is Output's rewrite for other transports (HTTP): msg is one JSON-RPC
// message as mcp-go writes it; if it is an error response and find has our
// typed error for its id (the key Key gives), the error response carrying
// it is returned, without a final '\n', and true; otherwise msg and false.
func Swap(msg []byte, find func(key string) *errors.Error) ([]byte, bool) {
	f, ok := peek(msg)
	if !ok || !f.isResponse() || !f.hasError {
		return msg, false
	}
	if e := find(f.id); e != nil {
		return bytes.TrimSuffix(errorLine(f.rawID, e), []byte{'\n'}), true
	}
	return msg, false
}

// Key is the key of request id, as Swap's find receives it.
func Key(id any) string { return idKey(id) }

// Serve runs mcp-go's stdio server for srv over in and out through the
// session, workers calls at a time, until in ends (the calls read are
// answered first), the client goes away, or ctx ends; the last two are
// clean stops (nil). gone is OnDisconnect's: whether nobody reads out any
// more (nil: never asked).
func (s *Session) Serve(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, workers int, gone func() bool) error {
	// A client that goes away mid-call must not leave its calls (and
	// whatever they started) running until they time out.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.OnDisconnect(stop, gone)
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(slog.NewLogLogger(s.logger.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(workers)(stdio)
	err := stdio.Listen(ctx, s.Input(ctx, in), s.Output(out))
	switch {
	case s.Lost():
		s.logger.Info("client disconnected; exiting")
		return nil
	case errors.Is(err, context.Canceled):
		s.logger.Info("stopped by signal")
		return nil
	case err == nil:
		s.logger.Info("input closed; exiting")
	}
	return err
}

// CancelNotification is the notifications/cancelled message for request id,
// for a server to replay to mcp-go a cancellation it ignored (see
// Cancelled).
func CancelNotification(id any) json.RawMessage {
	msg, _ := json.Marshal(map[string]any{
		"jsonrpc": mcp.JSONRPC_VERSION,
		"method":  mcp.MethodNotificationCancelled,
		"params":  map[string]any{"requestId": id, "reason": "cancelled while queued"},
	})
	return msg
}
