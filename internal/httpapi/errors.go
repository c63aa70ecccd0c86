package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/wire"
)

// Errors carries our typed tool errors to HTTP clients with their own code
// and data, as the stdio transport does (internal/wire): mcp-go turns every
// handler error into -32603. Its OnError hook records the error in the
// request's slot, found through the context, and Rewrite swaps it into the
// response as mcp-go writes it, as one JSON body or one SSE event.
//
// In result mode tool failures are isError results, and nothing is
// rewritten; Cancelled is for the server's hook, and HTTP has no queued
// calls to remember.
type Errors struct{}

// NewErrors returns the hook and rewriter pair for one MCP server.
func NewErrors() *Errors { return &Errors{} }

type slotKey struct{}

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

// Rewrite wraps an MCP handler so that the errors OnError recorded for a
// request reach its response.
func (*Errors) Rewrite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		s := &slot{errs: map[string]*errors.Error{}}
		r = r.WithContext(context.WithValue(r.Context(), slotKey{}, s))
		next.ServeHTTP(&rewriter{ResponseWriter: w, slot: s}, r)
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
