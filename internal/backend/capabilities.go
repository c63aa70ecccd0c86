package backend

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// The capabilities beyond notes: tasks, templates, bases and commands.

// Tasks implements tools.TaskLister, from the vault folder.
func (r *Router) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	return serve(ctx, r, "tasks", true, func(b tools.Everything) ([]tasks.Task, error) { return b.Tasks(ctx, q) })
}

// TaskSettings implements tools.TaskLister, from the vault folder.
func (r *Router) TaskSettings(ctx context.Context) (tasks.Settings, error) {
	return serve(ctx, r, "tasks", true, func(b tools.Everything) (tasks.Settings, error) { return b.TaskSettings(ctx) })
}

// Commands implements tools.Commander: only the app has them.
func (r *Router) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	return serve(ctx, r, "commands", false, func(b tools.Everything) ([]note.Command, error) { return b.Commands(ctx, filter) })
}

// RunCommand implements tools.Commander.
func (r *Router) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	return serve(ctx, r, "command", false, func(b tools.Everything) (note.CommandRun, error) { return b.RunCommand(ctx, id) })
}

// QueryBase implements tools.BaseQuerier: from the vault folder, whose
// evaluation is documented, else through the app's base:query.
func (r *Router) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	return preferFolder(ctx, r, "base", func(b tools.Everything) (bases.Result, error) { return b.QueryBase(ctx, loc, view) })
}

// Templates implements tools.TemplateLister, from the vault folder.
func (r *Router) Templates(ctx context.Context) (note.Templates, error) {
	return serve(ctx, r, "templates", true, func(b tools.Everything) (note.Templates, error) { return b.Templates(ctx) })
}
