package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type moveNoteArgs struct {
	locator
	version
	To string `json:"to" jsonschema:"A folder (/ for the root), or a new path with the extension." validate:"required,folder"`
}

var moveNote = spec[moveNoteArgs, note.Moved]{
	name:        "obsidian_move_note",
	toolset:     "files",
	confirm:     always,
	title:       "Move note",
	description: "Move a note to a folder or to a new path. Links to it are kept working. FILE_EXISTS if the destination is taken. Returns {from, to, links}.",
	hints:       hints{idempotent: true},
	run: func(ctx context.Context, v Vault, a moveNoteArgs) (note.Moved, error) {
		loc, err := checkVersion(ctx, v, a.note(), a.IfMatch)
		if err != nil {
			return note.Moved{}, err
		}
		return v.Notes.Move(ctx, loc, a.To)
	},
}
