// Package calls keeps our typed tool errors intact on their way through
// mcp-go, which turns every handler error into -32603 (mcp-go-notes.md §2),
// for the transports that are not stdio (stdio has internal/wire):
//
//   - Errors is the MCP server's OnError hook. It records a call's typed
//     error in a slot the request's context carries; Rewrite swaps it into
//     the HTTP answer mcp-go writes (one JSON body or one SSE event).
//   - Caller lists and calls tools through the server's own HandleMessage,
//     so that every hook and middleware (read-only mode, logging, the
//     folder policy behind the tools) applies as for any MCP client, and
//     gives back the typed error of a failed call. The Bridge Protocol v1
//     and the envelope API are built on it.
//
// Nothing here knows about tools or Obsidian.
package calls

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/wire"
)

// Errors is the OnError hook and the HTTP rewriter of one MCP server.
type Errors struct{}

// NewErrors returns the hook and rewriter for one MCP server.
func NewErrors() *Errors { return &Errors{} }

type slotKey struct{}

// typedKey marks a context whose calls must fail with their typed error
// even when the server renders failures as isError results (Typed).
type typedKey struct{}

// slot holds one request's typed errors, by request id.
type slot struct {
	mu   sync.Mutex
	errs map[string]*errors.Error
}

func (s *slot) find(key string) *errors.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs[key]
}

// withSlot gives ctx a fresh slot.
func withSlot(ctx context.Context) (context.Context, *slot) {
	s := &slot{errs: map[string]*errors.Error{}}
	return context.WithValue(ctx, slotKey{}, s), s
}

// OnError is an mcp-go OnError hook.
func (*Errors) OnError(ctx context.Context, id any, method mcp.MCPMethod, _ any, err error) {
	var e *errors.Error
	if method != mcp.MethodToolsCall && method != mcp.MethodResourcesRead || !errors.As(err, &e) {
		return
	}
	s, ok := ctx.Value(slotKey{}).(*slot)
	if !ok {
		return
	}
	if key := wire.Key(id); key != "" {
		s.mu.Lock()
		s.errs[key] = e
		s.mu.Unlock()
	}
}

// Cancelled reports no queued cancellation: over HTTP a call runs in its
// request, which ends when the client cancels.
func (*Errors) Cancelled(any) bool { return false }

// Typed reports whether a call in ctx must fail with its typed error
// rather than an isError result: the Caller's calls do, whatever
// --tool-errors says, since they render failures themselves.
func Typed(ctx context.Context) bool { return ctx.Value(typedKey{}) != nil }

// Rewrite wraps an MCP handler so that the errors OnError recorded for a
// request reach its response.
func (*Errors) Rewrite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		ctx, s := withSlot(r.Context())
		next.ServeHTTP(&rewriter{ResponseWriter: w, slot: s}, r.WithContext(ctx))
	})
}

// rewriter relies on mcp-go writing each message with one Write: a JSON
// body from json.Encoder, or "event: message\ndata: …\n\n".
type rewriter struct {
	http.ResponseWriter
	slot *slot
}

var (
	sseData = []byte("data: ")
	sseEnd  = []byte("\n\n")
)

func (w *rewriter) Write(p []byte) (int, error) {
	out := p
	if i := bytes.Index(p, sseData); i >= 0 && bytes.HasSuffix(p, sseEnd) && bytes.HasPrefix(p, []byte("event: ")) {
		msg := p[i+len(sseData) : len(p)-len(sseEnd)]
		if swapped, ok := wire.Swap(msg, w.slot.find); ok {
			out = append(append(append([]byte{}, p[:i+len(sseData)]...), swapped...), sseEnd...)
		}
	} else if len(p) > 0 && p[0] == '{' {
		if swapped, ok := wire.Swap(bytes.TrimSuffix(p, []byte("\n")), w.slot.find); ok {
			out = append(swapped, '\n')
		}
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *rewriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *rewriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Handle answers one JSON-RPC message from a client as s would over HTTP,
// for a transport that carries messages itself (the gateway): the answer
// (nil for a notification), with a failed call's typed error in place of
// mcp-go's -32603. ctx should carry the client's session (s.WithContext).
func (*Errors) Handle(ctx context.Context, s *server.MCPServer, msg []byte) []byte {
	ctx, sl := withSlot(ctx)
	res := s.HandleMessage(ctx, msg)
	if res == nil {
		return nil
	}
	out, err := json.Marshal(res)
	if err != nil {
		// mcp-go's own types always encode; say so rather than vanish.
		out, _ = json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": nil,
			"error": map[string]any{"code": mcp.INTERNAL_ERROR, "message": "the answer could not be encoded: " + err.Error()}})
		return out
	}
	out, _ = wire.Swap(out, sl.find)
	return out
}

// Caller calls the tools of an MCP server as a client would, in process.
type Caller struct {
	Server *server.MCPServer
}

// request is a JSON-RPC request for HandleMessage.
func request(method string, params any) ([]byte, error) {
	return json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": 1, "method": method, "params": params})
}

// answer runs one request and decodes its result into v, or returns its
// error: our typed error when the call recorded one.
func (c *Caller) answer(ctx context.Context, method string, params, v any) error {
	ctx, s := withSlot(context.WithValue(ctx, typedKey{}, true))
	msg, err := request(method, params)
	if err != nil {
		return errors.E(errors.Internal, "encoding %s: %v", method, err)
	}
	out, err := json.Marshal(c.Server.HandleMessage(ctx, msg))
	if err != nil {
		return errors.E(errors.Internal, "encoding the answer to %s: %v", method, err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return errors.E(errors.Internal, "decoding the answer to %s: %v", method, err)
	}
	if resp.Error != nil {
		if e := s.find(wire.Key(1)); e != nil {
			return e
		}
		return &ProtocolError{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		return errors.E(errors.Internal, "decoding the result of %s: %v", method, err)
	}
	return nil
}

// ProtocolError is a JSON-RPC error that is not one of our typed errors:
// an unknown tool (-32602 from mcp-go), a method not found.
type ProtocolError struct {
	Code    int
	Message string
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// Tools lists the tools as tools/list gives them (the read-only filter
// applied), every page.
func (c *Caller) Tools(ctx context.Context) ([]mcp.Tool, error) {
	var all []mcp.Tool
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res mcp.ListToolsResult
		if err := c.answer(ctx, string(mcp.MethodToolsList), params, &res); err != nil {
			return nil, err
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		cursor = string(res.NextCursor)
	}
}

// Tool is the tool registered under name, listed or not (in read-only
// mode the write tools are registered, to refuse calls, but not listed).
func (c *Caller) Tool(name string) (mcp.Tool, bool) {
	if st := c.Server.GetTool(name); st != nil {
		return st.Tool, true
	}
	return mcp.Tool{}, false
}

// Result is a tool's answer as the server gave it: the content blocks
// untouched, for a transport to pass on as they are.
type Result struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent any               `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// Call calls a tool. A failure the tool reports is its typed error; an
// unknown tool is a *ProtocolError.
func (c *Caller) Call(ctx context.Context, name string, args map[string]any) (*Result, error) {
	raw := json.RawMessage(`{}`)
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, errors.E(errors.InvalidParams, "the arguments cannot be encoded: %v", err)
		}
		raw = b
	}
	var res Result
	if err := c.answer(ctx, string(mcp.MethodToolsCall), map[string]any{"name": name, "arguments": raw}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
