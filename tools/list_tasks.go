package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

type listTasksArgs struct {
	Status    string `json:"status,omitempty" jsonschema:"todo (default), done, in_progress, cancelled or any." validate:"omitempty,oneof=todo done in_progress cancelled any"`
	DueBefore string `json:"due_before,omitempty" jsonschema:"Only tasks due on or before this day, YYYY-MM-DD." validate:"omitempty,day"`
	DueAfter  string `json:"due_after,omitempty" jsonschema:"Only tasks due on or after this day." validate:"omitempty,day"`
	Tag       string `json:"tag,omitempty" jsonschema:"Only tasks with this tag (nested tags too)." validate:"omitempty,max=200,nocontrols"`
	Folder    string `json:"folder,omitempty" jsonschema:"Only notes in this folder and below." validate:"omitempty,folder"`
	Text      string `json:"text,omitempty" jsonschema:"Only tasks whose text holds this." validate:"omitempty,max=500,nocontrols"`
	paging
}

var listTasks = spec[listTasksArgs, Page[tasks.Task]]{
	name:        "obsidian_list_tasks",
	toolset:     "tasks",
	title:       "List tasks",
	description: "List the vault's tasks (- [ ] items, with the Tasks plugin's 📅 ⏳ 🛫 ✅ 🔁 ⏫ fields or Dataview's [due:: …]), by due date, filtered by status, due dates, tag, folder and text. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listTasksArgs) (Page[tasks.Task], error) {
		q := tasks.Query{Status: a.Status, DueBefore: a.DueBefore, DueAfter: a.DueAfter, Tag: a.Tag, Folder: a.Folder, Text: a.Text}
		return pageAll(a.paging, key("tasks", q.Status, q.DueBefore, q.DueAfter, q.Tag, q.Folder, q.Text), func() ([]tasks.Task, error) {
			return v.Tasks.Tasks(ctx, q)
		})
	},
}
