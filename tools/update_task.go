package tools

import (
	"context"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

type updateTaskArgs struct {
	locator
	version
	Operation string `json:"operation" jsonschema:"complete, uncomplete or toggle." validate:"required,oneof=complete uncomplete toggle"`
	Line      int    `json:"line,omitempty" jsonschema:"The task's line, as obsidian_list_tasks gives it." validate:"omitempty,min=1"`
	Block     string `json:"block,omitempty" jsonschema:"Or the task's block id, e.g. ^call." validate:"omitempty,max=200,nocontrols"`
}

var updateTask = spec[updateTaskArgs, note.Edited]{
	name:    "obsidian_update_task",
	toolset: "tasks",
	title:   "Update task",
	description: "Complete, uncomplete or toggle one task (by `line` or `block`) as the Tasks plugin does: ✅ date added or removed; a 🔁 task gets its next occurrence. " +
		"To add a task, append `- [ ] text 📅 YYYY-MM-DD` to a note. Returns {path, etag, changed}.",
	hints: hints{idempotent: false},
	run: func(ctx context.Context, v Vault, a updateTaskArgs) (note.Edited, error) {
		if (a.Line == 0) == (a.Block == "") {
			return note.Edited{}, errors.InvalidFields(errors.Field{Field: "line", Message: "give the task's line or its block, one of them"},
				errors.Field{Field: "block", Message: "give the task's block id or its line, one of them"})
		}
		set, err := v.Tasks.TaskSettings(ctx)
		if errors.Is(err, note.ErrNeedsFolder) {
			// Only the app, on another machine: its settings cannot be
			// read, and the plugin's defaults are what most vaults use.
			set, err = tasks.DefaultSettings(), nil
		}
		if err != nil {
			return note.Edited{}, err
		}
		return v.Edit.Edit(ctx, a.note(), a.IfMatch, func(cur []byte) ([]byte, error) {
			return tasks.Update(cur, a.Line, a.Block, a.Operation, time.Now(), set)
		})
	},
}
