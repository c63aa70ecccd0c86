package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type readNoteArgs struct {
	locator
}

var readNote = spec[readNoteArgs, note.Content]{
	name:  "obsidian_read_note",
	title: "Read note",
	description: "Read a note's exact content, frontmatter included. Locate it by `path` (exact vault-relative path, e.g. `Projects/Plan.md`) or by `name` (resolved like a wikilink: `Plan` or `Projects/Plan`, case-insensitive). " +
		"A name that matches several notes fails with AMBIGUOUS_NAME listing every candidate path; call again with one of them as `path`. " +
		"Returns the raw Markdown as text, and {path, content} as structured content.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, b Backend, a readNoteArgs) (note.Content, error) {
		return b.Read(ctx, a.note())
	},
	raw:  true,
	text: func(c note.Content) string { return c.Content },
}
