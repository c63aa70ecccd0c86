package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type openNoteArgs struct {
	locator
	NewTab bool `json:"new_tab,omitempty" jsonschema:"Open in a new tab. Default false: the current tab."`
}

var openNote = spec[openNoteArgs, note.Opened]{
	name:        "obsidian_open_note",
	toolset:     "files",
	title:       "Open note in Obsidian",
	description: "Show a note in the Obsidian app, which must be running. Returns {path, new_tab}.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a openNoteArgs) (note.Opened, error) {
		return v.Notes.Open(ctx, a.note(), a.NewTab)
	},
}
