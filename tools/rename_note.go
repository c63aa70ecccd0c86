package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type renameNoteArgs struct {
	locator
	version
	NewName string `json:"new_name" jsonschema:"New name, e.g. Roadmap 2026." validate:"newname"`
}

var renameNote = spec[renameNoteArgs, note.Moved]{
	name:        "obsidian_rename_note",
	toolset:     "files",
	confirm:     always,
	title:       "Rename note",
	description: "Rename a note in its folder, keeping its extension. Links to it are kept working. FILE_EXISTS if the name is taken. Returns {from, to, links}.",
	hints:       hints{idempotent: true},
	run: func(ctx context.Context, v Vault, a renameNoteArgs) (note.Moved, error) {
		loc, err := checkVersion(ctx, v, a.note(), a.IfMatch)
		if err != nil {
			return note.Moved{}, err
		}
		return v.Notes.Rename(ctx, loc, a.NewName)
	},
}
