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
	Line      int    `json:"line,omitempty" jsonschema:"The task's line, as obsidian_list_tasks gives it; with if_match (the task's etag) or text." validate:"omitempty,min=1"`
	Block     string `json:"block,omitempty" jsonschema:"Or the task's block id, e.g. ^call." validate:"omitempty,max=200,nocontrols"`
	Text      string `json:"text,omitempty" jsonschema:"The task's text as obsidian_list_tasks gave it: the line must still hold that task." validate:"omitempty,max=2000"`
}

var updateTask = spec[updateTaskArgs, note.Edited]{
	name:    "obsidian_update_task",
	toolset: "tasks",
	title:   "Update task",
	description: "Complete, uncomplete or toggle one task (by `block`, or by `line` with the listing's `etag` as if_match or its `text`) as the Tasks plugin does: ✅ date added or removed; a 🔁 task gets its next occurrence. " +
		"To add a task, append `- [ ] text 📅 YYYY-MM-DD` to a note.",
	hints: hints{idempotent: false},
	run: func(ctx context.Context, v Vault, a updateTaskArgs) (note.Edited, error) {
		if (a.Line == 0) == (a.Block == "") {
			return note.Edited{}, errors.InvalidFields(errors.Field{Field: "line", Message: "give the task's line or its block, one of them"},
				errors.Field{Field: "block", Message: "give the task's block id or its line, one of them"})
		}
		if a.Line > 0 && a.IfMatch == "" && a.Text == "" {
			// A line alone names whatever stands there now: after an
			// outside edit it ticked another task.
			return note.Edited{}, errors.InvalidFields(errors.Field{Field: "line", Message: "give with it if_match (the etag obsidian_list_tasks gave with the task) or text (the task's text as listed), so that an edit made since the listing cannot make this change another task"})
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
			return tasks.Update(cur, tasks.Target{Line: a.Line, Block: a.Block, Text: a.Text}, a.Operation, time.Now(), set)
		})
	},
}
