package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type appendToNoteArgs struct {
	locator
	version
	Content string `json:"content" jsonschema:"The text, stored as sent." validate:"min=1"`
	Inline  bool   `json:"inline,omitempty" jsonschema:"Join the text to the last line."`
}

var appendToNote = spec[appendToNoteArgs, note.Written]{
	name:        "obsidian_append_to_note",
	toolset:     "edit",
	title:       "Append to note",
	description: "Add text at the end of a note. Unless `inline`, the text becomes its own Markdown block: a blank line goes before it unless the note ends with one or with a heading, or the text continues the list, table or quote there. Returns {path, bytes}.",
	hints:       hints{},
	run: func(ctx context.Context, v Vault, a appendToNoteArgs) (note.Written, error) {
		if a.IfMatch != "" {
			// A conditional write is a compare-and-swap edit.
			return editWritten(ctx, v, a.locator, a.IfMatch, a.Content, func(cur []byte) ([]byte, error) {
				return note.Append(cur, []byte(a.Content), a.Inline), nil
			})
		}
		return v.Notes.Append(ctx, a.note(), a.Content, a.Inline)
	},
}
