// Package tools defines obsidian-mcp's MCP tools: their names, argument
// schemas, validation, descriptions, annotations and results. Each tool has a
// file of its own holding its arguments struct, constructor and handler, with
// its test beside it. All is the single registry that the server, the README
// generator and the invariant tests read.
//
// Tools talk to a Backend at the level of vault operations; they know
// nothing of the Obsidian CLI or the file system.
package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Backend performs vault operations. obsidiancli.Backend implements it over
// the Obsidian CLI. Every implementation keeps one contract: names resolve
// like wikilinks and refuse ambiguity, creates never clobber, content is kept
// byte for byte, and failures are *errors.Error values of the documented kinds.
type Backend interface {
	Create(ctx context.Context, req note.CreateRequest) (note.Created, error)
	Read(ctx context.Context, loc note.Locator) (note.Content, error)
	Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error)
	Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error)
	Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error)
	Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error)
	Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error)
	Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error)
	FileInfo(ctx context.Context, loc note.Locator) (note.Info, error)
}
