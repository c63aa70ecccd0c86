package tools

import (
	"context"
	"fmt"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type deleteNoteArgs struct {
	locator
	version
	Permanent   bool   `json:"permanent,omitempty" jsonschema:"Delete for good instead of to the trash."`
	ConfirmPath string `json:"confirm_path,omitempty" jsonschema:"Permanent delete: the note's path again, when the client cannot ask the user." validate:"omitempty,notepath"`
}

var deleteNote = spec[deleteNoteArgs, note.Deleted]{
	name:        "obsidian_delete_note",
	toolset:     "files",
	confirm:     always,
	title:       "Delete note",
	description: "Delete a note: to the trash, or with `permanent` for good (only when the user asked; the user confirms, or `confirm_path` repeats the path). Returns {path, permanent, trash_path}.",
	hints:       hints{destructive: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a deleteNoteArgs) (note.Deleted, error) {
		loc, err := checkVersion(ctx, v, a.note(), a.IfMatch)
		if err != nil {
			return note.Deleted{}, err
		}
		if a.Permanent {
			if loc, err = confirmPermanent(ctx, v, loc, a.ConfirmPath); err != nil {
				return note.Deleted{}, err
			}
		}
		return v.Notes.Delete(ctx, loc, a.Permanent)
	},
}

// confirmPermanent lets a permanent delete go ahead, pinned to the note's
// path, only when confirmPath names the note or the user said yes.
func confirmPermanent(ctx context.Context, v Vault, loc note.Locator, confirmPath string) (note.Locator, error) {
	info, err := v.Notes.FileInfo(ctx, loc)
	if err != nil {
		return loc, err
	}
	loc = note.ByPath(info.Path)
	switch {
	case confirmPath == info.Path:
		return loc, nil
	case confirmPath != "":
		return loc, errors.InvalidFields(errors.Field{Field: "confirm_path", Message: fmt.Sprintf("must be the path of the note to delete, %s", info.Path)})
	}
	var confirmed, asked bool
	if v.Ask != nil {
		confirmed, asked, err = v.Ask.Confirm(ctx, "confirm_permanent_delete", fmt.Sprintf("Delete %s (%d bytes) permanently? It will not go to the trash and cannot be restored.", info.Path, info.Size))
		if err != nil {
			return loc, err // the question itself, for the client to put
		}
	}
	switch {
	case !asked:
		return loc, errors.InvalidFields(errors.Field{Field: "confirm_path", Message: fmt.Sprintf("a permanent delete needs confirm_path set to the note's path, %s (this client cannot ask the user); or leave out permanent to move it to the trash", info.Path)})
	case !confirmed:
		return loc, errors.E(errors.PermissionDenied, "the user did not confirm deleting %s permanently; nothing was deleted", info.Path).With("path", info.Path).
			WithHint("Leave out permanent to move the note to the trash instead, or ask the user first.")
	}
	return loc, nil
}
