// Package protocol is the one place where an MCP message from a client
// becomes an answer, for every transport (stdio, Streamable HTTP, HTTP+SSE,
// the stdio bridge, the gateway's vault namespaces). It sits on mcp-go's
// MCPServer, which dispatches methods to tools and resources, and decides
// once what mcp-go leaves to each transport or gets wrong for us
// (docs/mcp-go.md):
//
//   - typed errors: a handler's Coded error is answered with its own code,
//     message and data, where mcp-go would answer -32603; the answer is
//     built from values, never by rewriting bytes mcp-go wrote;
//   - request tracking: every request read is counted until answered, so a
//     transport can wait for them at end of input instead of dropping them;
//   - cancellation: notifications/cancelled stops a running call and keeps
//     a queued one from starting, and a cancelled request is not answered,
//     as MCP asks;
//   - order: notifications a request caused (progress, the acknowledgement
//     of subscriptions/listen) are delivered before its answer;
//   - batches: answered per the revision in use (processed for 2025-03-26,
//     the only revision that has them; refused with -32600 otherwise);
//   - revisions: every face speaks Revisions, 2024-11-05 to 2026-07-28.
//
// A transport opens a Session per client connection, hands it each
// message it reads (Receive), and writes what it is given: answers through
// Receive's reply, everything else through the Session's Sink.
package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Revisions are the MCP revisions every face negotiates, newest first.
var Revisions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Supported reports whether revision is one of Revisions.
func Supported(revision string) bool { return slices.Contains(Revisions, revision) }

// batchRevision is the only revision with JSON-RPC batches, and the one a
// server assumes when a client says nothing (MCP 2025-06-18, "Protocol
// Version Header").
const batchRevision = "2025-03-26"

// Options configure a Core.
type Options struct {
	Logger *slog.Logger
	// Workers bounds the requests that read the vault run at once, over
	// all sessions (default 8): tools/call, resources/read and
	// prompts/get, whose answers may each be megabytes. More wait their
	// turn, and can be cancelled while they wait. Other requests are
	// cheap and are not bounded.
	Workers int
	// CallTimeout bounds one request (0: none); subscriptions/listen, which
	// lasts as long as the client listens, is not bounded.
	CallTimeout time.Duration
	// Substitute may answer a failed request with a result in place of its
	// error (the stdio bridge answers a call to a tool it does not have
	// with an isError result, as its contract asks).
	Substitute func(Failure) (result any, ok bool)
	// MaxBatch bounds the messages of one batch (default DefaultMaxBatch);
	// MaxBatchBytes the batch's whole answer (default
	// DefaultMaxBatchBytes). Over either, the batch is one error.
	MaxBatch      int
	MaxBatchBytes int64
}

// DefaultMaxBatch and DefaultMaxBatchBytes bound a batch where no setting
// says otherwise: 100 messages, and 16 MiB of answers in all. (A batch of
// 20,000 tools/list in 1.1 MB was once answered with 519 MB.)
const (
	DefaultMaxBatch      = 100
	DefaultMaxBatchBytes = 16 << 20
)

// Core dispatches MCP messages to one mcp-go server.
type Core struct {
	srv     *server.MCPServer
	opts    Options
	workers chan struct{}
	// waiting counts requests waiting for a worker (Waiting).
	waiting atomic.Int64
	// running counts requests from the moment they are read until their
	// answer is delivered, over all sessions (Wait).
	running sync.WaitGroup

	prepare  func()
	prepared atomic.Bool
}

// New returns the core of srv, which must have been built with Hooks.
func New(srv *server.MCPServer, opts Options) *Core {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	if opts.MaxBatchBytes <= 0 {
		opts.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	return &Core{srv: srv, opts: opts, workers: make(chan struct{}, opts.Workers)}
}

// Waiting is how many requests wait for a worker, over all sessions.
func (c *Core) Waiting() int { return int(c.waiting.Load()) }

// bounded says whether a method takes one of the workers: those whose
// answer reads the vault and may be large. resources/read was once not
// among them, and a client that asked for a 9 MB note 40 times had 40
// answers made at once (411 MB resident where 350 MB was the ceiling).
func bounded(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodToolsCall, mcp.MethodResourcesRead, mcp.MethodPromptsGet:
		return true
	}
	return false
}

// Server is the mcp-go server the core dispatches to.
func (c *Core) Server() *server.MCPServer { return c.srv }

// MaxBatch is the most messages a batch may hold.
func (c *Core) MaxBatch() int { return c.opts.MaxBatch }

// CallTimeout is the bound on one request (0: none).
func (c *Core) CallTimeout() time.Duration { return c.opts.CallTimeout }

// Defer puts work off the start-up path: prepare runs once, in the
// background as soon as the first answer (normally initialize's) is
// delivered, or before the first request other than initialize and ping is
// dispatched, whichever comes first; that request waits for it. A server
// can so answer initialize before building what other requests need (the
// tool list). Call it before the first Receive.
func (c *Core) Defer(prepare func()) { c.prepare = sync.OnceFunc(prepare) }

func (c *Core) startPrepare() {
	if c.prepare != nil && !c.prepared.Swap(true) {
		go c.prepare()
	}
}

// Wait waits until every request read by any session has been answered,
// or ctx ends.
func (c *Core) Wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { c.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// envelope is what the core reads of a message before mcp-go decodes it.
// Names match as encoding/json matches them to mcp-go's structs, so both
// see the same message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// parse reads a message; a failure is the error answer it gets.
func parse(raw []byte) (*envelope, []byte) {
	var e envelope
	if err := json.Unmarshal(raw, &e); err != nil {
		if !json.Valid(raw) {
			return nil, ErrorAnswer(nil, mcp.PARSE_ERROR, "Parse error: the message is not valid JSON")
		}
		return nil, ErrorAnswer(nil, mcp.INVALID_REQUEST, "Invalid Request: a message must be a JSON-RPC object")
	}
	if bytes.Equal(e.ID, []byte("null")) {
		e.ID = nil
	}
	return &e, nil
}

// idKey is the canonical key of a JSON id: numbers and strings never
// collide (7 and "7" are different requests), and 7 and 7.0 are the same.
// Anything else is "" (not a request id).
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return "s:" + s
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ""
	}
	return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
}

// handle runs one request through mcp-go, recovering a panic as an error
// answer, and renders the answer.
func (c *Core) handle(ctx context.Context, id json.RawMessage, raw []byte) []byte {
	ctx, sl := withSlot(ctx)
	var res mcp.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.opts.Logger.Error("request handler panicked", "panic", r, "stack", string(debug.Stack()))
				sl.mu.Lock()
				sl.f = &Failure{Err: fmt.Errorf("internal panic: %v", r)}
				sl.mu.Unlock()
			}
		}()
		res = c.srv.HandleMessage(ctx, raw)
	}()
	f, forced := sl.failure()
	return c.render(id, res, f, forced, declaredRevision([]json.RawMessage{raw}))
}

// render encodes mcp-go's answer, or ours where the request failed with a
// Coded error or the Substitute takes it.
func (c *Core) render(id json.RawMessage, res mcp.JSONRPCMessage, f *Failure, forced bool, revision string) []byte {
	if e, ok := toolFailure(res); ok && !forced {
		f = &Failure{Method: mcp.MethodToolsCall, Err: e}
		res = nil
	}
	failed := res == nil || forced
	switch res.(type) {
	case mcp.JSONRPCError, *mcp.JSONRPCError:
		failed = true
	}
	if failed && f != nil {
		if c.opts.Substitute != nil {
			if result, ok := c.opts.Substitute(*f); ok {
				if m, ok := result.(mcp.ResultMetadata); ok && revision >= "2026-07-28" && m.GetResultType() == "" {
					// Required from 2026-07-28 on; mcp-go sets it on the
					// results it answers, and a substitute is not one
					// (the bridge's "Tool 'x' not found" lacked it).
					m.SetResultType(mcp.ResultTypeComplete)
				}
				out, err := json.Marshal(answer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: result})
				if err == nil {
					return out
				}
				c.opts.Logger.Error("a substitute answer could not be encoded", "err", err)
			}
		}
		if obj, ok := unknownResource(res, f); ok {
			return errorAnswer(id, obj)
		}
		if e, ok := coded(f.Err); ok {
			return errorAnswer(id, Object(e))
		}
		if res == nil {
			return ErrorAnswer(id, mcp.INTERNAL_ERROR, f.Err.Error())
		}
	}
	if res == nil {
		return ErrorAnswer(id, mcp.INTERNAL_ERROR, "the server gave no answer")
	}
	// mcp-go answers a request it cannot decode with a null id; the core
	// read the id, and the client needs it to match the answer.
	if e, ok := res.(mcp.JSONRPCError); ok && e.ID.IsNil() && len(id) > 0 {
		return errorAnswer(id, ErrorObject{Code: e.Error.Code, Message: e.Error.Message, Data: e.Error.Data})
	}
	out, err := json.Marshal(res)
	if err != nil {
		// mcp-go's own types always encode; say so rather than vanish.
		return ErrorAnswer(id, mcp.INTERNAL_ERROR, "the answer could not be encoded: "+err.Error())
	}
	return out
}

// BatchAllowed says whether a batch of items may be processed: revision is
// the one the client's session negotiated or its request header names (""
// when neither says). Revision 2025-03-26 is the only one with batches;
// with no revision known, the items' own (2026-07-28 requests carry it)
// decide, and 2025-03-26 is assumed when they do not say either. The error
// says why, for the client's -32600 "Invalid Request: …".
func BatchAllowed(revision string, items []json.RawMessage) error {
	if len(items) == 0 {
		return fmt.Errorf("a batch must be a non-empty array of JSON-RPC messages")
	}
	if revision == "" {
		revision = declaredRevision(items)
	}
	if revision != "" && revision != batchRevision {
		return fmt.Errorf("MCP revision %s has no JSON-RPC batches (only %s has); send each message on its own", revision, batchRevision)
	}
	return nil
}

// BatchSize refuses a batch of n messages over limit (max_batch).
func BatchSize(n, limit int) error {
	if limit > 0 && n > limit {
		return fmt.Errorf("a batch of %d messages is over the limit of %d (max_batch): send at most %d in one batch", n, limit, limit)
	}
	return nil
}

// BatchTooLarge is the one answer of a batch whose answers add up to more
// than limit bytes: an error naming max_response, with no id (it answers
// the batch, not one of its requests).
func BatchTooLarge(limit int64) []byte {
	type data struct {
		Limit    string `json:"limit"`
		MaxBytes int64  `json:"max_bytes"`
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    data   `json:"data"`
	}
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", json.RawMessage("null"), rpcError{mcp.INTERNAL_ERROR,
		fmt.Sprintf("the batch's answers add up to more than %d bytes (limits.max_response): send fewer requests in one batch, or ask for less in each", limit),
		data{"max_response", limit}}})
	return out
}

// BatchAnswers gathers a batch's answers within limit bytes in all: once
// they add up to more, every answer kept is let go, so memory stays within
// the limit and one answer in flight, and Join gives BatchTooLarge.
type BatchAnswers struct {
	mu    sync.Mutex
	limit int64
	size  int64
	over  bool
	out   [][]byte // by the index of the message answered
}

// NewBatchAnswers gathers the answers to n messages within limit bytes (0:
// no bound).
func NewBatchAnswers(n int, limit int64) *BatchAnswers {
	return &BatchAnswers{limit: limit, out: make([][]byte, n)}
}

// Add keeps the answer to message i (nil: none is due).
func (b *BatchAnswers) Add(i int, answer []byte) {
	if answer == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return
	}
	b.size += int64(len(answer)) + 1
	if b.limit > 0 && b.size > b.limit {
		b.over, b.out = true, nil
		return
	}
	b.out[i] = answer
}

// Over reports whether the answers went over the limit.
func (b *BatchAnswers) Over() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.over
}

// Join is the batch's answer: the answers as one JSON array, BatchTooLarge
// when they went over the limit, or nil when none is due.
func (b *BatchAnswers) Join() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return BatchTooLarge(b.limit)
	}
	var out [][]byte
	for _, a := range b.out {
		if a != nil {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']')
}

// batchWorkers bounds the requests of one batch run at once, so that a
// batch whose answers go over its limit stops within a few answers of it,
// and never holds more than that many in memory.
const batchWorkers = 16

// RunBatch runs the n messages of one POST: send(i, reply) hands
// message i on, and says whether it is a request, whose answer it gives to
// reply exactly once. For a batch, at most batchWorkers requests run at
// once, their answers go to answers, and once those go over its limit the
// rest are not sent (the batch's one answer is the error). RunBatch
// returns when every request sent has been answered, or ctx ended.
func RunBatch(ctx context.Context, n int, batch bool, answers *BatchAnswers, send func(i int, reply func([]byte)) bool) {
	slots := make(chan struct{}, batchWorkers)
	var wg sync.WaitGroup
	for i := range n {
		if batch {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				wg.Wait()
				return
			}
			if answers.Over() {
				<-slots
				break
			}
		}
		wg.Add(1)
		request := send(i, func(answer []byte) {
			if batch {
				answers.Add(i, answer)
				<-slots
			}
			wg.Done()
		})
		if !request {
			if batch {
				<-slots
			}
			wg.Done()
		}
	}
	wg.Wait()
}

// unknownResource is the answer to a resources/read whose URI no template
// of the server matches: mcp-go's code (chosen by the request's revision)
// and message, with the data MCP asks for, the URI, which mcp-go leaves out.
func unknownResource(res mcp.JSONRPCMessage, f *Failure) (ErrorObject, bool) {
	req, ok := f.Message.(*mcp.ReadResourceRequest)
	if f.Method != mcp.MethodResourcesRead || !ok || !errors.Is(f.Err, server.ErrResourceNotFound) {
		return ErrorObject{}, false
	}
	code := mcp.RESOURCE_NOT_FOUND
	switch e := res.(type) {
	case mcp.JSONRPCError:
		code = e.Error.Code
	case *mcp.JSONRPCError:
		code = e.Error.Code
	}
	return Object(errors.E(errors.ResourceNotFound, "no resource at %s: no resource template of this server matches it", req.Params.URI).
		With("uri", req.Params.URI).WithCode(errors.Code(code))), true
}

// declaredRevision is the revision a 2026-07-28-style request in items
// declares in its _meta, or "".
func declaredRevision(items []json.RawMessage) string {
	for _, item := range items {
		var m struct {
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(item, &m) != nil {
			continue
		}
		var v string
		if raw, ok := m.Params.Meta[mcp.MetaKeyProtocolVersion]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
			return v
		}
	}
	return ""
}

// revisionKey carries the revision a transport learned from the request
// (the MCP-Protocol-Version header).
type revisionKey struct{}

// WithRevision tells the core which revision the client named for the
// messages received with ctx.
func WithRevision(ctx context.Context, revision string) context.Context {
	return context.WithValue(ctx, revisionKey{}, revision)
}
