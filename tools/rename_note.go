package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type renameNoteArgs struct {
	locator
	version
	NewName string `json:"new_name" jsonschema:"New file name without folder, e.g. Roadmap 2026; the extension is kept (added when omitted)." validate:"newname"`
}

var renameNote = spec[renameNoteArgs, note.Moved]{
	name:  "obsidian_rename_note",
	title: "Rename note",
	description: "Rename a note in its folder, keeping its extension. " + linksKept + " " +
		"Fails with FILE_EXISTS, changing nothing, if the new name is taken. To change folders use obsidian_move_note. Returns {from, to, links}.",
	hints: hints{idempotent: true},
	run: func(ctx context.Context, v Vault, a renameNoteArgs) (note.Moved, error) {
		loc, err := checkVersion(ctx, v, a.note(), a.IfMatch)
		if err != nil {
			return note.Moved{}, err
		}
		return v.Notes.Rename(ctx, loc, a.NewName)
	},
}
