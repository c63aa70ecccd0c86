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
//     its own lock.
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
	"time"

	"github.com/mark3labs/mcp-go/mcp"

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
	cancelled map[string]bool
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
		cancelled:    map[string]bool{},
	}
}

// OnError is an mcp-go OnError hook. It fires inside HandleMessage, before
// the error response is written, and records our typed error for Output.
func (s *Session) OnError(_ context.Context, id any, method mcp.MCPMethod, _ any, err error) {
	var e *errors.Error
	if method != mcp.MethodToolsCall || !errors.As(err, &e) {
		return
	}
	if key := idKey(id); key != "" {
		s.mu.Lock()
		s.errs[key] = e
		s.mu.Unlock()
	}
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
	if n > 0 {
		s.logger.Debug("input closed; answering pending requests before exiting", "pending", n)
	}
	select {
	case <-idle:
	case <-ctx.Done():
	case <-timer.C:
		s.logger.Warn("input closed; gave up waiting for pending requests", "pending", s.Pending(), "waited", s.drainTimeout)
	}
}

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
		f, ok := peek(line)
		switch {
		case ok && f.method == "exit" && f.id == "":
			in.done = true // graceful shutdown, as at end of input
			continue
		case ok && f.isRequest():
			in.s.begin(f.id)
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
		cancelled, e := o.s.cancelled[key], o.s.errs[key]
		o.s.mu.Unlock()
		if cancelled {
			// MCP: the receiver of a cancellation should not answer.
			o.s.finish(key)
			return len(p), nil
		}
		if f.hasError && e != nil {
			msg = errorLine(f.rawID, e)
		}
	}
	o.mu.Lock()
	_, err := o.w.Write(msg)
	o.mu.Unlock()
	if key != "" {
		o.s.finish(key)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
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
