package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The commands toolset is opt-in (--commands): a command may do anything
// in the app, beyond the vault's files.

type listCommandsArgs struct {
	Filter string `json:"filter,omitempty" jsonschema:"Only ids starting with this, e.g. editor: or daily-notes." validate:"omitempty,max=200,nocontrols"`
	paging
}

var listCommands = spec[listCommandsArgs, Page[note.Command]]{
	name:        "obsidian_list_commands",
	toolset:     Commands,
	title:       "List commands",
	description: "List the Obsidian app's commands (its command palette, plugins' included): id and name. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listCommandsArgs) (Page[note.Command], error) {
		k := key("commands", a.Filter)
		off, err := a.offset(k)
		if err != nil {
			return Page[note.Command]{}, err
		}
		all, err := v.Commands.Commands(ctx, a.Filter)
		if err != nil {
			return Page[note.Command]{}, err
		}
		items := all[min(off, len(all)):min(off+a.limit(), len(all))]
		pg := Page[note.Command]{Total: len(all), Items: items}
		if off+len(items) < len(all) {
			pg.NextCursor = nextCursor(k, off+len(items))
		}
		return pg, nil
	},
}

type runCommandArgs struct {
	ID string `json:"id" jsonschema:"The command's id, from obsidian_list_commands." validate:"required,max=200,nocontrols"`
}

var runCommand = spec[runCommandArgs, note.CommandRun]{
	name:    "obsidian_run_command",
	toolset: Commands,
	title:   "Run command",
	description: "Run an Obsidian command by id, as from the command palette; it acts on the app and the open note and cannot be undone from here. " +
		"Returns {id, output}.",
	hints: hints{destructive: true},
	run: func(ctx context.Context, v Vault, a runCommandArgs) (note.CommandRun, error) {
		return v.Commands.RunCommand(ctx, a.ID)
	},
}
