package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type moveNoteArgs struct {
	locator
	version
	To string `json:"to" jsonschema:"Destination: a folder (e.g. Archive/2026; / for the vault root), or a full new path ending in the note's extension (e.g. Archive/Old plan.md)." validate:"required,folder"`
}

// linksKept tells the model what happens to links on a move or rename,
// whichever backend serves it.
const linksKept = "Links to the note keep working: through the Obsidian app, Obsidian updates them (its \"Automatically update internal links\" setting); " +
	"on the vault folder without the app, the server rewrites them itself ([[wikilinks]] with headings and aliases, embeds, Markdown links; never inside code) and reports the count in `links`."

var moveNote = spec[moveNoteArgs, note.Moved]{
	name:  "obsidian_move_note",
	title: "Move note",
	description: "Move a note to another folder, or to a new full path (which can rename it too). " + linksKept +
		" Fails with FILE_EXISTS, changing nothing, if a note is already at the destination. Locate the note by `path` or `name`. Returns {from, to, links}.",
	hints: hints{idempotent: true},
	run: func(ctx context.Context, v Vault, a moveNoteArgs) (note.Moved, error) {
		loc, err := checkVersion(ctx, v, a.note(), a.IfMatch)
		if err != nil {
			return note.Moved{}, err
		}
		return v.Notes.Move(ctx, loc, a.To)
	},
}
