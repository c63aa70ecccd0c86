package backend

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

// What one backend alone has is not routed: tasks and templates are read
// from the vault folder (the app has no command that lists them in a
// documented shape), and the app's commands only the app has. Each is
// served straight from its backend, and says what it needs where that
// backend is missing.

// onFolder runs call on the vault folder: given, learned, or asked of the
// app now. Without one it answers that what needs the folder, with hint.
func onFolder[R any](ctx context.Context, r *Router, op, what, hint string, call func(*native.Engine) (R, error)) (R, error) {
	v, err := r.folder(ctx)
	if v == nil {
		var zero R
		return zero, errors.E(errors.Unsupported, "%s needs the vault folder, and %v", what, err).WithCause(note.ErrNeedsFolder).WithHint(hint)
	}
	r.Logger.Debug("call served", "op", op, "backend", Native)
	return call(v)
}

// folderTasks implements tools.TaskLister from the vault folder.
type folderTasks struct{ r *Router }

const tasksHint = "Tasks are read from the notes in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH."

func (t folderTasks) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	return onFolder(ctx, t.r, "tasks", "the list of tasks", tasksHint, func(v *native.Engine) ([]tasks.Task, error) { return v.Tasks(ctx, q) })
}

func (t folderTasks) TaskSettings(ctx context.Context) (tasks.Settings, error) {
	return onFolder(ctx, t.r, "tasks", "the Tasks plugin's settings", "They are read from the plugin's data.json in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.",
		func(v *native.Engine) (tasks.Settings, error) { return v.TaskSettings(ctx) })
}

// folderTemplates implements tools.TemplateLister from the vault folder.
type folderTemplates struct{ r *Router }

func (t folderTemplates) Templates(ctx context.Context) (note.Templates, error) {
	return onFolder(ctx, t.r, "templates", "the list of templates", "The app's commands do not list templates; they are read from the template folder in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.",
		func(v *native.Engine) (note.Templates, error) { return v.Templates(ctx) })
}

// appCommands implements tools.Commander through the app.
type appCommands struct{ r *Router }

func (c appCommands) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	if c.r.Mode == Native || c.r.App == nil {
		return nil, needsApp("Obsidian's commands")
	}
	cmds, err := c.r.App.Commands.Commands(ctx, filter)
	return cmds, c.r.wayOut(err)
}

func (c appCommands) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	if c.r.Mode == Native || c.r.App == nil {
		return note.CommandRun{}, needsApp("running an Obsidian command")
	}
	run, err := c.r.App.Commands.RunCommand(ctx, id)
	return run, c.r.wayOut(err)
}

// wayOut is withWayOut in auto mode, where the folder is the other way
// out; in CLI mode the app's error stands as it is.
func (r *Router) wayOut(err error) error {
	if r.Mode == Auto {
		return withWayOut(err)
	}
	return err
}

// folderFolders implements tools.Folders on the vault folder: the app's
// command line moves files, not folders.
type folderFolders struct{ r *Router }

const foldersHint = "Folders are created, moved and deleted in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH."

func (f folderFolders) CreateFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	return onFolder(ctx, f.r, "folder create", "creating a folder", foldersHint, func(v *native.Engine) (note.FolderChange, error) { return v.CreateFolder(ctx, folder) })
}

func (f folderFolders) MoveFolder(ctx context.Context, folder, to string) (note.FolderChange, error) {
	return onFolder(ctx, f.r, "folder move", "moving a folder", foldersHint, func(v *native.Engine) (note.FolderChange, error) { return v.MoveFolder(ctx, folder, to) })
}

func (f folderFolders) DeleteFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	return onFolder(ctx, f.r, "folder delete", "deleting a folder", foldersHint, func(v *native.Engine) (note.FolderChange, error) { return v.DeleteFolder(ctx, folder) })
}
