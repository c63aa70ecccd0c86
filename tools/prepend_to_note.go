package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type prependToNoteArgs struct {
	locator
	version
	Content string `json:"content" jsonschema:"Text to insert at the top of the note, after its frontmatter, stored exactly as sent." validate:"min=1"`
	Inline  bool   `json:"inline,omitempty" jsonschema:"Insert the text with nothing after it. Default false: the text is a Markdown block of its own (see the description)."`
}

var prependToNote = spec[prependToNoteArgs, note.Written]{
	name:  "obsidian_prepend_to_note",
	title: "Prepend to note",
	description: "Insert text at the top of an existing note, just after its YAML frontmatter (the frontmatter stays first). Locate the note by `path` or `name` (see obsidian_read_note). " +
		"By default the text becomes its own Markdown block: it ends its line, and a blank line follows unless the body already starts with one, the text ends with a heading, or it is a list item before a list. The note must exist. Returns {path, bytes}.",
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
