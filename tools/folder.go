package tools

import (
	"context"

	"github.com/go-playground/validator/v10"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type folderArgs struct {
	Operation string `json:"operation" jsonschema:"create, move (or rename) or delete." validate:"required,oneof=create move delete"`
	Folder    string `json:"folder" jsonschema:"The folder, vault-relative, e.g. Projects/2026." validate:"required,max=1000,nocontrols"`
	To        string `json:"to,omitempty" jsonschema:"move: the folder's new path, e.g. Archive/2026 (rename: the same parent, a new name)." validate:"omitempty,max=1000,nocontrols"`
}

// checkAcross implements acrossFields: a move needs to; nothing else
// takes it.
func (a folderArgs) checkAcross(sl validator.StructLevel) {
	if (a.Operation == "move") != (a.To != "") {
		sl.ReportError(a.To, "to", "To", "folderTo", "")
	}
}

// folderConfirm: moving or deleting a folder asks first, as moving or
// deleting a note does; creating one does not.
func folderConfirm(args map[string]any) bool { return args["operation"] != "create" }

var folderTool = spec[folderArgs, note.FolderChange]{
	name:        "obsidian_folder",
	toolset:     "files",
	confirm:     folderConfirm,
	title:       "Create, move or delete a folder",
	description: "Create a folder; move or rename one, its files along and links to them rewritten (never merged: FILE_EXISTS); delete an empty one to the trash.",
	hints:       hints{destructive: true},
	run: func(ctx context.Context, v Vault, a folderArgs) (note.FolderChange, error) {
		if v.Folders == nil {
			return note.FolderChange{}, errors.E(errors.Unsupported, "this backend cannot change folders").
				WithHint("Folders are changed in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
		}
		switch a.Operation {
		case "create":
			return v.Folders.CreateFolder(ctx, a.Folder)
		case "move":
			return v.Folders.MoveFolder(ctx, a.Folder, a.To)
		}
		return v.Folders.DeleteFolder(ctx, a.Folder)
	},
}
