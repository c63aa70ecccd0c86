package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Coded is an error that chooses the JSON-RPC error its request is
// answered with. mcp-go answers every handler error with -32603 and no data
// (docs/mcp-go.md §2); a handler that returns a Coded error (our
// errors.Error, or a bridged server's own error) gets its code, message and
// data to the client on every transport.
type Coded interface {
	error
	JSONRPCError() (code int, message string, data any)
}

// Failure is a request's failure as mcp-go's OnError hook saw it.
type Failure struct {
	Method  mcp.MCPMethod
	Message any // the decoded request, e.g. *mcp.CallToolRequest
	Err     error
}

// ToolFailure is what a tool handler returns for a call that failed with
// err, in place of the error: mcp-go (v1.2.1) answers every error a tool
// handler returns with -32603 and no data (docs/mcp-go.md §2), but hands
// the handler's result back unchanged, so the failure rides back in it and
// the core answers with err's own code, message and data. Its text is the
// message, for a face that shows results as they are.
func ToolFailure(err Coded) *mcp.CallToolResult {
	_, msg, _ := err.JSONRPCError()
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(msg)}, IsError: true, StructuredContent: failedCall{err}}
}

// failedCall marks a ToolFailure.
type failedCall struct{ err Coded }

// MarshalJSON writes the error object, should a result carrying one ever
// be encoded as it is.
func (f failedCall) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"success": false, "error": Object(f.err)})
}

// toolFailure is the Coded error a ToolFailure in res carries.
func toolFailure(res mcp.JSONRPCMessage) (Coded, bool) {
	r, ok := res.(mcp.JSONRPCResponse)
	if !ok {
		return nil, false
	}
	ctr, ok := r.Result.(*mcp.CallToolResult)
	if !ok || ctr == nil {
		return nil, false
	}
	f, ok := ctr.StructuredContent.(failedCall)
	return f.err, ok
}

// Hooks adds to h what the core needs of every server it dispatches to: the
// OnError hook that keeps a failed request's error for its answer (a
// failure outside a tool's result: a resource, a prompt, a panic). Build
// the server with these hooks.
func Hooks(h *server.Hooks) { h.AddOnError(onError) }

// slot holds one request's failure, from the hook to the answer. Each
// request gets its own, in its context, so nothing is keyed by id and
// nothing outlives the request.
type slot struct {
	mu sync.Mutex
	f  *Failure
	// forced: the request fails with f even if mcp-go answered it (Fail).
	forced bool
}

type slotKey struct{}

func withSlot(ctx context.Context) (context.Context, *slot) {
	s := &slot{}
	return context.WithValue(ctx, slotKey{}, s), s
}

func (s *slot) failure() (f *Failure, forced bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f, s.forced
}

// Fail makes the request ctx belongs to fail with err, whatever mcp-go
// answers: for a hook that learns only after mcp-go built a result that
// the request failed (the bridge's forwarded listings). It reports false
// when ctx is not a request's the core dispatched.
func Fail(ctx context.Context, err Coded) bool {
	s, ok := ctx.Value(slotKey{}).(*slot)
	if ok {
		s.mu.Lock()
		s.f, s.forced = &Failure{Err: err}, true
		s.mu.Unlock()
	}
	return ok
}

// onError is the OnError hook: it fires inside HandleMessage, before the
// error answer is returned.
func onError(ctx context.Context, _ any, method mcp.MCPMethod, message any, err error) {
	if s, ok := ctx.Value(slotKey{}).(*slot); ok {
		s.mu.Lock()
		if !s.forced {
			s.f = &Failure{Method: method, Message: message, Err: err}
		}
		s.mu.Unlock()
	}
}

// typedKey marks a context whose tool calls must fail with their Coded
// error even where the server renders failures as isError results: the
// in-process Caller renders failures itself.
type typedKey struct{}

// Typed reports whether a call in ctx must fail with its Coded error
// rather than an isError result.
func Typed(ctx context.Context) bool { return ctx.Value(typedKey{}) != nil }

// ErrorObject is a JSON-RPC error object.
type ErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Answer is the JSON-RPC error answer to id carrying o.
func (o ErrorObject) Answer(id json.RawMessage) []byte { return errorAnswer(id, o) }

// Object is the error object a Coded error is answered with.
func Object(c Coded) ErrorObject {
	code, msg, data := c.JSONRPCError()
	return ErrorObject{Code: code, Message: msg, Data: data}
}

// answer is a JSON-RPC response of ours, members in the order mcp-go
// writes them, so that a transcript reads the same whoever answered.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *ErrorObject    `json:"error,omitempty"`
}

// errorAnswer encodes an error response to id (nil: null).
func errorAnswer(id json.RawMessage, obj ErrorObject) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out, err := json.Marshal(answer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &obj})
	if err != nil {
		// Data that cannot be encoded must not cost the client its answer.
		obj.Data = nil
		out, _ = json.Marshal(answer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &obj})
	}
	return out
}

// ErrorAnswer is a JSON-RPC error response, for transports that refuse a
// message before the core sees it.
func ErrorAnswer(id json.RawMessage, code int, message string) []byte {
	return errorAnswer(id, ErrorObject{Code: code, Message: message})
}

// coded finds a Coded error in err's chain.
func coded(err error) (Coded, bool) {
	var c Coded
	return c, errors.As(err, &c)
}
