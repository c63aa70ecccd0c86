package backend

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// notes implements tools.Notes: each call checked against the policy,
// then routed.
type notes struct{ r *Router }

func (n notes) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	r := n.r
	if err := r.writePolicy(ctx).CheckWrite(req.Target()); err != nil {
		return note.Created{}, err
	}
	return serve(ctx, r, "create", true, func(b side) (note.Created, error) {
		res, err := recordedApp(ctx, r, b, note.PartCreate, note.ByPath(req.Target()), "", func() (note.Created, error) { return b.Notes.Create(ctx, req) })
		if b.mode == Native && err == nil && req.Open && r.App != nil && !r.appDown() {
			// Written to the folder (the CLI could not carry it); the app
			// still shows it. The note is written, so failing now would
			// invite a retry that finds it existing: report it not opened.
			if _, oerr := r.App.Notes.Open(ctx, note.ByPath(res.Path), false); oerr != nil {
				r.Logger.Warn("note created but not opened", "path", res.Path, "err", oerr)
			} else {
				res.Opened = true
			}
		}
		return res, err
	})
}

func (n notes) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	c, _, err := readNote(ctx, n.r, loc, func() (note.Content, error) {
		return preferFolder(ctx, n.r, "read", func(b side) (note.Content, error) { return b.Notes.Read(ctx, loc) })
	}, func(c note.Content) string { return c.Path })
	return c, err
}

func (n notes) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	_, loc, err := n.r.writable(ctx, loc)
	if err != nil {
		return note.Written{}, err
	}
	return serve(ctx, n.r, "append", true, func(b side) (note.Written, error) {
		return recordedApp(ctx, n.r, b, note.PartEdit, loc, "", func() (note.Written, error) { return b.Notes.Append(ctx, loc, content, inline) })
	})
}

func (n notes) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	_, loc, err := n.r.writable(ctx, loc)
	if err != nil {
		return note.Written{}, err
	}
	return serve(ctx, n.r, "prepend", true, func(b side) (note.Written, error) {
		return recordedApp(ctx, n.r, b, note.PartEdit, loc, "", func() (note.Written, error) { return b.Notes.Prepend(ctx, loc, content, inline) })
	})
}

func (n notes) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	_, loc, err := n.r.writable(ctx, loc)
	if err != nil {
		return note.Deleted{}, err
	}
	return serve(ctx, n.r, "delete", true, func(b side) (note.Deleted, error) {
		return recordedApp(ctx, n.r, b, note.PartDelete, loc, "", func() (note.Deleted, error) { return b.Notes.Delete(ctx, loc, permanent) })
	})
}

// Move: the note must be one the server may change, and so must the
// place it goes to.
func (n notes) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	return n.relocate(ctx, loc, "move", func(from string) string { return note.MoveTarget(from, to) },
		func(b side, loc note.Locator) (note.Moved, error) { return b.Notes.Move(ctx, loc, to) })
}

// Rename, as Move.
func (n notes) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	return n.relocate(ctx, loc, "rename", func(from string) string { return note.RenameTarget(from, newName) },
		func(b side, loc note.Locator) (note.Moved, error) { return b.Notes.Rename(ctx, loc, newName) })
}

// relocate checks a move of the note at loc to target(its path), then
// runs it on the exact path.
func (n notes) relocate(ctx context.Context, loc note.Locator, op string, target func(string) string, run func(side, note.Locator) (note.Moved, error)) (note.Moved, error) {
	pol, loc, err := n.r.writable(ctx, loc)
	if err != nil {
		return note.Moved{}, err
	}
	if loc.Path != "" {
		if err := pol.CheckWrite(target(loc.Path)); err != nil {
			return note.Moved{}, err
		}
	}
	return serve(ctx, n.r, op, true, func(b side) (note.Moved, error) {
		to := ""
		if b.mode == CLI {
			if info, err := n.r.infoInFolder(ctx, loc); err == nil {
				to = target(info.Path)
			}
		}
		return recordedApp(ctx, n.r, b, note.PartMove, loc, to, func() (note.Moved, error) { return run(b, loc) })
	})
}

// Open: only the app can show a note, so it never falls back. A name is
// resolved first while the policy hides notes: the app would show a
// hidden note to the user before its path could be checked.
func (n notes) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	pol := n.r.Policy(ctx)
	if err := named(pol, loc); err != nil {
		return note.Opened{}, err
	}
	if loc.Path == "" && pol.Hides() {
		info, err := n.FileInfo(ctx, loc)
		if err != nil {
			return note.Opened{}, err
		}
		loc = note.ByPath(info.Path)
	}
	return serve(ctx, n.r, "open", false, func(b side) (note.Opened, error) { return b.Notes.Open(ctx, loc, newTab) })
}

func (n notes) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	info, _, err := readNote(ctx, n.r, loc, func() (note.Info, error) { return n.info(ctx, loc) }, func(i note.Info) string { return i.Path })
	return info, err
}

// info is FileInfo routed, unchecked: how a write finds the path a name
// resolves to, before the policy judges that path.
func (n notes) info(ctx context.Context, loc note.Locator) (note.Info, error) {
	return serve(ctx, n.r, "file_info", true, func(b side) (note.Info, error) { return b.Notes.FileInfo(ctx, loc) })
}

// edit implements tools.Editor: a precise edit, on a note the policy
// lets the server change, from the folder when there is one.
type edit struct{ r *Router }

func (e edit) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	_, loc, err := e.r.writable(ctx, loc)
	if err != nil {
		return note.Edited{}, err
	}
	return preferFolder(ctx, e.r, "edit", func(b side) (note.Edited, error) { return b.Edit.Edit(ctx, loc, ifMatch, change) })
}
