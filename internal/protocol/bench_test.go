package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// BenchmarkReceive: one tools/call through the core and mcp-go, read to
// answered, for a 2 KB result and for a failure answered with our typed
// error: what every face pays per call besides the tool itself. The
// mcp-go_alone runs are HandleMessage and encoding the answer, with no
// session, tracking or typed error: the core's cost is the difference.
func BenchmarkReceive(b *testing.B) {
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	s := server.NewMCPServer("bench", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	text := strings.Repeat("note text ", 200)
	s.AddTool(mcp.NewTool("read", mcp.WithString("path")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(text), nil
	})
	s.AddTool(mcp.NewTool("missing", mcp.WithString("path")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.E(errors.FileNotFound, "note not found: A.md").WithHint("Check the path.").With("path", "A.md")
	})
	core := protocol.New(s, protocol.Options{})
	sess, err := core.Open("bench", func([]byte) error { return nil }, protocol.SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	for _, tool := range []string{"read", "missing"} {
		b.Run(tool, func(b *testing.B) {
			done := make(chan []byte, 1)
			i := 0
			for b.Loop() {
				i++
				sess.Receive(context.Background(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":"A.md"}}}`, i, tool), func(a []byte) { done <- a })
				if a := <-done; a == nil {
					b.Fatal("no answer")
				}
			}
		})
		b.Run(tool+"/mcp-go_alone", func(b *testing.B) {
			ctx := sess.Context(context.Background())
			i := 0
			for b.Loop() {
				i++
				res := s.HandleMessage(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":"A.md"}}}`, i, tool))
				if _, err := json.Marshal(res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
