package tools

import (
	"context"

	"github.com/go-playground/validator/v10"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type undoArgs struct {
	ID     string `json:"id,omitempty" jsonschema:"A change of obsidian_history." validate:"omitempty,max=64"`
	Client string `json:"client,omitempty" jsonschema:"Or a client's last." validate:"omitempty,max=200"`
	Last   int    `json:"last,omitempty" jsonschema:"How many (1)." validate:"omitempty,min=1,max=50"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Say, do nothing."`
}

// checkAcross implements acrossFields: one change by id, or a client's
// last ones.
func (a undoArgs) checkAcross(sl validator.StructLevel) {
	if (a.ID == "") == (a.Client == "") {
		sl.ReportError(a.ID, "id", "ID", "undoWhich", "")
	}
	if a.Last != 0 && a.Client == "" {
		sl.ReportError(a.Last, "last", "Last", "undoLast", "")
	}
}

// Undoer reverts changes of the record, as writes of their own.
type Undoer interface {
	Undo(ctx context.Context, r note.UndoRequest) (note.Undone, error)
}

var undo = spec[undoArgs, note.Undone]{
	name:    "obsidian_undo",
	toolset: "history",
	// It moves, deletes and overwrites as the writes it reverses did.
	confirm:     func(args map[string]any) bool { dry, _ := args["dry_run"].(bool); return !dry },
	title:       "Undo a change",
	description: "Revert a change exactly; a note changed since: only its lines, or REVISION_CONFLICT.",
	hints:       hints{destructive: true},
	run: func(ctx context.Context, v Vault, a undoArgs) (note.Undone, error) {
		if v.Undo == nil {
			return note.Undone{}, errors.E(errors.Unsupported, "this server keeps no change record (--changes-dir off, or no vault folder), so nothing can be undone").
				WithHint("Ask the user to run the server with the vault folder (--vault-path) and without --changes-dir off.")
		}
		last := a.Last
		if a.Client != "" && last == 0 {
			last = 1
		}
		return v.Undo.Undo(ctx, note.UndoRequest{ID: a.ID, Client: a.Client, Last: last, DryRun: a.DryRun})
	},
}
