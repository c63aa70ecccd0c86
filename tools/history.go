package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type historyArgs struct {
	ID     string `json:"id,omitempty" jsonschema:"One, with diffs."`
	Path   string `json:"path,omitempty" jsonschema:"This note's."`
	Folder string `json:"folder,omitempty" jsonschema:"This folder's."`
	Tool   string `json:"tool,omitempty" jsonschema:"This tool's."`
	Client string `json:"client,omitempty" jsonschema:"This client's."`
	Since  string `json:"since,omitempty" jsonschema:"From (RFC 3339, or a day)."`
	Until  string `json:"until,omitempty" jsonschema:"Until (RFC 3339, or a day)."`
	Limit  int    `json:"limit,omitempty" validate:"omitempty,min=1,max=200"`
	Cursor string `json:"cursor,omitempty"`
}

// historyResult is a page of changes, or one change in detail.
type historyResult struct {
	Changes []note.VaultChange `json:"changes,omitempty" jsonschema:"the changes, newest first (without id)"`
	Next    string             `json:"next_cursor,omitempty" jsonschema:"pass as cursor for older changes; absent at the end"`
	Change  *note.ChangeDetail `json:"change,omitempty" jsonschema:"the change asked for by id, with a diff of each note it changed"`
	// Unreadable counts damaged entries of the record that were skipped.
	Unreadable int `json:"unreadable,omitempty" jsonschema:"entries of the record that are damaged and were skipped"`
}

var history = spec[historyArgs, historyResult]{
	name:        "obsidian_history",
	toolset:     "history",
	title:       "History of changes",
	description: "The changes the tools made, newest first. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a historyArgs) (historyResult, error) {
		if v.History == nil {
			return historyResult{}, errors.E(errors.Unsupported, "this server keeps no change record (--changes-dir off, or no vault folder)").
				WithHint("Ask the user to run the server with the vault folder (--vault-path) and without --changes-dir off.")
		}
		if a.ID != "" {
			d, err := v.History.Change(ctx, a.ID)
			if err != nil {
				return historyResult{}, err
			}
			for i, p := range d.Diffs {
				if diff, cut := capDiff(p.Diff); cut {
					d.Diffs[i].Diff, d.Diffs[i].Note = diff, "the diff is cut short here; read the note for the rest"
				}
			}
			return historyResult{Change: &d}, nil
		}
		since, err := note.TimeArg(a.Since, false)
		if err != nil {
			return historyResult{}, errors.InvalidFields(errors.Field{Field: "since", Message: err.Error()})
		}
		until, err := note.TimeArg(a.Until, true)
		if err != nil {
			return historyResult{}, errors.InvalidFields(errors.Field{Field: "until", Message: err.Error()})
		}
		limit := a.Limit
		if limit == 0 {
			limit = 20
		}
		l, err := v.History.Changes(ctx, note.ChangeQuery{Path: a.Path, Folder: a.Folder, Tool: a.Tool, Client: a.Client,
			Since: since, Until: until, Limit: limit, Cursor: a.Cursor})
		if err != nil {
			return historyResult{}, err
		}
		return historyResult{Changes: l.Changes, Next: l.Next, Unreadable: l.Unreadable}, nil
	},
}
