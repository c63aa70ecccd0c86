package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type appendToNoteArgs struct {
	locator
	version
	Content string `json:"content" jsonschema:"Text to add at the end of the note, stored exactly as sent." validate:"min=1"`
	Inline  bool   `json:"inline,omitempty" jsonschema:"Add the text directly after the last character. Default false: the text starts on a new line (a newline is inserted only when the note does not already end with one)."`
}

var appendToNote = spec[appendToNoteArgs, note.Written]{
	name:  "obsidian_append_to_note",
	title: "Append to note",
	description: "Add text at the end of an existing note (a log entry, a task, a paragraph). Locate the note by `path` or `name` (see obsidian_read_note). " +
		"By default the text starts on a new line; `inline` joins it to the last line. The note must exist (FILE_NOT_FOUND otherwise; use obsidian_create_note). Returns {path, bytes}.",
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
