package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type prependToNoteArgs struct {
	locator
	version
	Content string `json:"content" jsonschema:"Text to insert at the top of the note, after its frontmatter, stored exactly as sent." validate:"min=1"`
	Inline  bool   `json:"inline,omitempty" jsonschema:"Insert the text without a newline after it. Default false: a newline follows the text."`
}

var prependToNote = spec[prependToNoteArgs, note.Written]{
	name:  "obsidian_prepend_to_note",
	title: "Prepend to note",
	description: "Insert text at the top of an existing note, just after its YAML frontmatter (the frontmatter stays first). Locate the note by `path` or `name` (see obsidian_read_note). " +
		"A newline follows the text unless `inline` is true. The note must exist. Returns {path, bytes}.",
	hints: hints{},
	run: func(ctx context.Context, v Vault, a prependToNoteArgs) (note.Written, error) {
		if a.IfMatch != "" {
			// A conditional write is a compare-and-swap edit.
			return editWritten(ctx, v, a.locator, a.IfMatch, a.Content, func(cur []byte) ([]byte, error) {
				return note.Prepend(cur, []byte(a.Content), a.Inline), nil
			})
		}
		return v.Notes.Prepend(ctx, a.note(), a.Content, a.Inline)
	},
}
