package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type deleteNoteArgs struct {
	locator
	version
	Permanent bool `json:"permanent,omitempty" jsonschema:"Delete irreversibly. Default false: the note goes to the trash, where the user can restore it (Obsidian's deleted-files setting; without the app, the vault's .trash folder)."`
}

var deleteNote = spec[deleteNoteArgs, note.Deleted]{
	name:  "obsidian_delete_note",
	title: "Delete note",
	description: "Delete a note. By default it is moved to the trash and can be restored; `permanent: true` deletes it irreversibly, so use that only when the user asked for it. " +
		"Locate the note by `path` or `name`; an ambiguous name deletes nothing and fails with AMBIGUOUS_NAME. Returns {path, permanent, trash_path}.",
	hints: hints{destructive: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a deleteNoteArgs) (note.Deleted, error) {
		loc, err := checkVersion(ctx, v, a.note(), a.IfMatch)
		if err != nil {
			return note.Deleted{}, err
		}
		return v.Notes.Delete(ctx, loc, a.Permanent)
	},
}
