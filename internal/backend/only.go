package backend

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// What one backend alone has is not routed: tasks, templates, folders and
// a tag renamed across notes are served by the vault folder (the app has
// no command for them in a documented shape), the app's commands by the
// app. Each is still held to the policy first, and says what it needs
// where its backend is missing.

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

// taskList implements tools.TaskLister from the vault folder: the tasks
// of hidden notes are left out.
type taskList struct{ r *Router }

const tasksHint = "Tasks are read from the notes in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH."

func (t taskList) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	res, err := onFolder(ctx, t.r, "tasks", "the list of tasks", tasksHint, func(v *native.Engine) ([]tasks.Task, error) { return v.Tasks(ctx, q) })
	if err == nil {
		res = visible(ctx, t.r, res, func(t tasks.Task) string { return t.Path })
	}
	return res, err
}

// TaskSettings: the plugin's settings are no note.
func (t taskList) TaskSettings(ctx context.Context) (tasks.Settings, error) {
	return onFolder(ctx, t.r, "tasks", "the Tasks plugin's settings", "They are read from the plugin's data.json in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.",
		func(v *native.Engine) (tasks.Settings, error) { return v.TaskSettings(ctx) })
}

// templates implements tools.TemplateLister from the vault folder: hidden
// templates are left out.
type templates struct{ r *Router }

func (t templates) Templates(ctx context.Context) (note.Templates, error) {
	res, err := onFolder(ctx, t.r, "templates", "the list of templates", "The app's commands do not list templates; they are read from the template folder in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.",
		func(v *native.Engine) (note.Templates, error) { return v.Templates(ctx) })
	if err == nil {
		res.Templates = visible(ctx, t.r, res.Templates, func(t note.Template) string { return t.Path })
	}
	return res, err
}

// tagRenamer implements tools.TagRenamer on the vault folder, when it is
// known (the app's edits of notes go through the folder too): the notes
// the policy does not let the server change are listed as failed, and the
// rest renamed as one edit.
type tagRenamer struct{ r *Router }

func (t tagRenamer) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	pol := t.r.writePolicy(ctx)
	var allowed []string
	var refused []note.FailedNote
	for _, p := range paths {
		if err := pol.CheckWrite(p); err != nil {
			refused = append(refused, note.FailedNote{Path: p, Message: errors.From(err).Message})
			continue
		}
		allowed = append(allowed, p)
	}
	res, err := note.TagRename{}, error(tools.ErrNoBulk)
	if v := t.r.native(); v != nil {
		res, err = v.RenameTag(ctx, from, to, allowed)
	}
	res.Failed = append(refused, res.Failed...)
	return res, err
}

// headingRenamer implements tools.HeadingRenamer on the vault folder, when
// it is known: the note must be one the server may change; the linking
// notes it may not are listed as failed, and the rest changed as one edit.
type headingRenamer struct{ r *Router }

func (h headingRenamer) RenameHeading(ctx context.Context, plan note.HeadingPlan) (note.HeadingRenamed, error) {
	pol := h.r.writePolicy(ctx)
	if err := pol.CheckWrite(plan.Target); err != nil {
		return note.HeadingRenamed{}, err
	}
	var allowed []string
	var refused []note.FailedNote
	for _, p := range plan.Paths {
		if err := pol.CheckWrite(p); err != nil {
			refused = append(refused, note.FailedNote{Path: p, Message: errors.From(err).Message})
			continue
		}
		allowed = append(allowed, p)
	}
	plan.Paths = allowed
	res, err := note.HeadingRenamed{}, error(tools.ErrNoBulk)
	if v := h.r.native(); v != nil {
		res, err = v.RenameHeading(ctx, plan)
	}
	res.Failed = append(refused, res.Failed...)
	return res, err
}

// folders implements tools.Folders on the vault folder (the app's command
// line moves files, not folders): the folder, and a move's destination,
// must be ones the server may change; the engine judges each file a move
// takes along.
type folders struct{ r *Router }

const foldersHint = "Folders are created, moved and deleted in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH."

func (f folders) CreateFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	if err := f.r.writePolicy(ctx).CheckWrite(asFolder(folder)); err != nil {
		return note.FolderChange{}, err
	}
	return onFolder(ctx, f.r, "folder create", "creating a folder", foldersHint, func(v *native.Engine) (note.FolderChange, error) { return v.CreateFolder(ctx, folder) })
}

func (f folders) MoveFolder(ctx context.Context, folder, to string) (note.FolderChange, error) {
	pol := f.r.writePolicy(ctx)
	for _, p := range []string{folder, to} {
		if err := pol.CheckWrite(asFolder(p)); err != nil {
			return note.FolderChange{}, err
		}
	}
	return onFolder(ctx, f.r, "folder move", "moving a folder", foldersHint, func(v *native.Engine) (note.FolderChange, error) { return v.MoveFolder(ctx, folder, to) })
}

func (f folders) DeleteFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	if err := f.r.writePolicy(ctx).CheckWrite(asFolder(folder)); err != nil {
		return note.FolderChange{}, err
	}
	return onFolder(ctx, f.r, "folder delete", "deleting a folder", foldersHint, func(v *native.Engine) (note.FolderChange, error) { return v.DeleteFolder(ctx, folder) })
}

// asFolder is folder as the policy judges a folder: read as the engine
// reads it (note.FolderArg), with one trailing slash, so that a rule on
// what it holds applies.
func asFolder(folder string) string { return note.FolderArg(folder) + "/" }

// commands implements tools.Commander through the app: listing the
// commands reads no note; running one is refused while a policy is set.
type commands struct{ r *Router }

func (c commands) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	if c.r.Mode == Native || c.r.App == nil {
		return nil, needsApp("Obsidian's commands")
	}
	cmds, err := c.r.App.Commands.Commands(ctx, filter)
	return cmds, c.r.wayOut(err)
}

// RunCommand is refused while a folder policy restricts what the server
// may see or change: a command acts on the whole vault, outside it.
func (c commands) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	if c.r.Policy(ctx).Restricts() {
		return note.CommandRun{}, errors.E(errors.PermissionDenied, "Obsidian commands act on the whole vault, outside the folder policy this server keeps (--read-paths, --write-paths, --deny-paths, .mcpignore); none is run while one is set").
			WithHint("Run the command in Obsidian yourself, or serve without a folder policy.")
	}
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

// needsApp is what the folder says of what only the app can do.
func needsApp(what string) *errors.Error {
	return errors.E(errors.Unsupported, "%s needs the Obsidian app, and this server is working on the vault folder without it", what).
		WithHint("Start Obsidian with its command line interface enabled, and run the server with --backend auto (the default) or --backend cli.")
}
