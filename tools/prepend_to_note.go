package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type prependToNoteArgs struct {
	locator
	version
	Content string `json:"content" jsonschema:"The text, stored as sent." validate:"min=1"`
	Inline  bool   `json:"inline,omitempty" jsonschema:"Put nothing after the text."`
}

var prependToNote = spec[prependToNoteArgs, note.Written]{
	name:        "obsidian_prepend_to_note",
	toolset:     "edit",
	title:       "Prepend to note",
	description: "Insert text at the top of a note, after its frontmatter. Unless `inline`, the text ends its line and a blank line follows, unless the body starts with one, the text ends with a heading, or a list item meets a list. Returns {path, bytes}.",
	hints:       hints{},
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
