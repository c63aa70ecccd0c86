package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type appendToNoteArgs struct {
	locator
	version
	Content string `json:"content" jsonschema:"Text to add at the end of the note, stored exactly as sent." validate:"min=1"`
	Inline  bool   `json:"inline,omitempty" jsonschema:"Join the text to the note's last line, as sent. Default false: the text is a Markdown block of its own (see the description)."`
}

var appendToNote = spec[appendToNoteArgs, note.Written]{
	name:  "obsidian_append_to_note",
	title: "Append to note",
	description: "Add text at the end of an existing note (a log entry, a task, a paragraph). Locate the note by `path` or `name` (see obsidian_read_note). " +
		"By default the text becomes its own Markdown block: a blank line goes before it unless the note already ends with one, ends with a heading, or the text continues the list, table or quote the note ends with (a list item, a row, a `>` line). The note must exist (FILE_NOT_FOUND otherwise; use obsidian_create_note). Returns {path, bytes}.",
	hints: hints{},
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
