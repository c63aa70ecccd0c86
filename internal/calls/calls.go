// Package calls keeps our typed tool errors intact through mcp-go's
// Streamable HTTP server, which `serve` still uses: Errors is the MCP
// server's OnError hook, and Rewrite swaps the recorded error into the
// HTTP answer mcp-go writes (one JSON body or one SSE event).
//
// Every other face answers through internal/protocol, which builds the
// answer instead of rewriting it; this package goes when `serve` does too.
package calls

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
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
	if key := idKey(id); key != "" {
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
		if swapped, ok := swap(msg, w.slot.find); ok {
			out = append(append(append([]byte{}, p[:i+len(sseData)]...), swapped...), sseEnd...)
		}
	} else if len(p) > 0 && p[0] == '{' {
		if swapped, ok := swap(bytes.TrimSuffix(p, []byte("\n")), w.slot.find); ok {
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

// idKey is the key of a request id as mcp-go decodes it (a float64 or a
// string), or "".
func idKey(id any) string {
	if r, ok := id.(mcp.RequestId); ok {
		id = r.Value()
	}
	raw, err := json.Marshal(id)
	if err != nil || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// swap returns the error response carrying our typed error in place of
// msg, an error response mcp-go wrote, if find has one for its id.
func swap(msg []byte, find func(key string) *errors.Error) ([]byte, bool) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &f) != nil || f.Method != "" || f.Error == nil {
		return msg, false
	}
	var id any
	if json.Unmarshal(f.ID, &id) != nil {
		return msg, false
	}
	e := find(idKey(id))
	if e == nil {
		return msg, false
	}
	return protocol.CodedAnswer(f.ID, e), true
}
