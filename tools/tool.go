package tools

import (
	"context"
	"encoding/json"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Envelope is the structured result of every tool but read: the seed
// contract {"success":true,"data":{...}}.
type Envelope[R any] struct {
	Success bool `json:"success" jsonschema:"always true; failures are JSON-RPC errors"`
	Data    R    `json:"data"`
}

// hints are a tool's annotations. They are set explicitly for every tool:
// mcp-go's defaults (destructive, open-world) would misdescribe most of ours.
type hints struct {
	readOnly, destructive, idempotent bool
}

// spec describes one tool; build turns it into a server.ServerTool.
type spec[A, R any] struct {
	name, title, description string
	hints                    hints
	run                      func(ctx context.Context, b Backend, args A) (R, error)
	// raw makes R itself the structured content, with text as the text
	// block, instead of the envelope.
	raw  bool
	text func(R) string
}

func (s spec[A, R]) build(b Backend, v *validator.Validate) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithToolTitle(s.title),
		mcp.WithDescription(s.description),
		mcp.WithInputSchema[A](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           s.title,
			ReadOnlyHint:    mcp.ToBoolPtr(s.hints.readOnly),
			DestructiveHint: mcp.ToBoolPtr(s.hints.destructive),
			IdempotentHint:  mcp.ToBoolPtr(s.hints.idempotent),
			OpenWorldHint:   mcp.ToBoolPtr(false), // a local vault, nothing beyond it
		}),
	}
	if s.raw {
		opts = append(opts, mcp.WithOutputSchema[R]())
	} else {
		opts = append(opts, mcp.WithOutputSchema[Envelope[R]]())
	}
	return server.ServerTool{
		Tool: mcp.NewTool(s.name, opts...),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := bind[A](v, req)
			if err != nil {
				return nil, err
			}
			res, err := s.run(ctx, b, args)
			if err != nil {
				return nil, errors.From(err)
			}
			if s.raw {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(s.text(res))}, StructuredContent: res}, nil
			}
			return Structured(Envelope[R]{Success: true, Data: res})
		},
	}
}

// Structured renders v as both the text block (its JSON) and structured
// content, the shape of every tool result but read's.
func Structured(v any) (*mcp.CallToolResult, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, errors.E(errors.Internal, "encoding the result: %v", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(text))}, StructuredContent: v}, nil
}

// All is the registry: every tool, in the order tools/list presents them.
func All(b Backend) []server.ServerTool {
	v := newValidator()
	return []server.ServerTool{
		createNote.build(b, v),
		readNote.build(b, v),
		appendToNote.build(b, v),
		prependToNote.build(b, v),
		deleteNote.build(b, v),
		moveNote.build(b, v),
		renameNote.build(b, v),
		openNote.build(b, v),
		fileInfo.build(b, v),
	}
}
