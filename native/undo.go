package native

import (
	"bytes"
	"context"
	"io/fs"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Undo takes an undo's steps (changes.Record.Plan) in order, under the
// vault's write lock, each recorded as a part of ctx's change like every
// other write. Each step is checked again as it is taken: a file changed
// between the plan and its step stops the undo there with
// REVISION_CONFLICT, and the answer says which steps were taken (they are
// the undo's change, which can be undone in turn).
func (v *Engine) Undo(ctx context.Context, steps []changes.Step) ([]note.UndoStep, error) {
	release, err := v.writing(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	done := []note.UndoStep{}
	for _, s := range steps {
		step, err := v.undoStep(ctx, s)
		if err != nil {
			if len(done) > 0 {
				return done, errors.From(err).With("steps_taken", done).
					WithHint("The steps before it were taken and are recorded as this undo's change (obsidian_history lists it): undo that change to put them back, or ask again once the note is settled.")
			}
			return done, err
		}
		done = append(done, step)
	}
	return done, nil
}

func (v *Engine) undoStep(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	switch s.Op {
	case changes.StepWrite:
		return v.undoWrite(ctx, s)
	case changes.StepTrash:
		return v.undoCreate(ctx, s)
	case changes.StepCreate:
		return v.undoDelete(ctx, s)
	case changes.StepMove:
		return v.undoMove(ctx, s)
	case changes.StepRmdir:
		return v.undoMkdir(ctx, s)
	case changes.StepMkdir:
		return v.undoRmdir(ctx, s)
	}
	return note.UndoStep{}, errors.E(errors.Internal, "an undo step of an unknown kind (%q)", s.Op)
}

// changedMeanwhile is a file found changed between an undo's plan and its
// step.
func changedMeanwhile(p string) error {
	return errors.E(errors.RevisionConflict, "%s changed while the undo was being made; it stopped there", p).With("path", p)
}

// undoWrite gives an edited note its bytes back, if it still has those
// the plan saw.
func (v *Engine) undoWrite(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	_, err := v.update(ctx, s.Path, v.RealPath(s.Path), func(cur []byte) ([]byte, error) {
		if changes.Hash(cur) != s.Expect {
			return nil, changedMeanwhile(s.Path)
		}
		return s.Data, nil
	})
	if err != nil {
		return note.UndoStep{}, undoError(err, s.Path)
	}
	v.published.Add(v.root, v.RealPath(s.Path))
	return note.UndoStep{Op: "restore", Path: s.Path, Merged: s.Merged}, nil
}

// undoCreate moves a created note to the trash, if it still has the bytes
// it was created with.
func (v *Engine) undoCreate(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	before, err := v.readBefore(ctx, s.Path)
	if err != nil {
		return note.UndoStep{}, FileError(err, s.Path)
	}
	if changes.Hash(before) != s.Expect {
		return note.UndoStep{}, changedMeanwhile(s.Path)
	}
	dest, err := v.remove(ctx, s.Path, before, false)
	if err != nil {
		return note.UndoStep{}, err
	}
	return note.UndoStep{Op: "trash", Path: s.Path, Note: "moved to " + dest}, nil
}

// undoDelete puts a deleted note back where nothing is: from the trash
// when the file there is still the one deleted (its mode and times come
// back with it), else from the record's bytes.
func (v *Engine) undoDelete(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	done, err := v.madeDirs(ctx, note.Dir(s.Path))
	if err != nil {
		return note.UndoStep{}, err
	}
	defer done()
	if s.From != "" && strings.HasPrefix(s.From, TrashDir+"/") {
		if data, err := v.root.ReadFile(s.From); err == nil && bytes.Equal(data, s.Data) {
			if moved, err := v.backFromTrash(ctx, s.From, s.Path, false); err != nil || moved {
				return note.UndoStep{Op: "restore", Path: s.Path, From: s.From}, err
			}
		}
	}
	part, err := recordPart(ctx, note.PartCreate, s.Path, "", nil, s.Data)
	if err != nil {
		return note.UndoStep{}, err
	}
	err = atomicfile.Create(v.root, s.Path, s.Data)
	part.Done(err)
	if errors.Is(err, fs.ErrExist) {
		return note.UndoStep{}, changedMeanwhile(s.Path)
	}
	if err != nil {
		return note.UndoStep{}, FileError(err, s.Path)
	}
	v.published.Add(v.root, s.Path)
	return note.UndoStep{Op: "restore", Path: s.Path}, nil
}

// undoMove moves a file or folder back, without replacing anything and
// without rewriting a link: the change's own rewrites are undone as the
// edits they were.
func (v *Engine) undoMove(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	from, to := strings.TrimSuffix(s.From, "/"), strings.TrimSuffix(s.Path, "/")
	done, err := v.madeDirs(ctx, note.Dir(to))
	if err != nil {
		return note.UndoStep{}, err
	}
	defer done()
	if dir := note.Dir(to); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return note.UndoStep{}, FileError(err, dir)
		}
	}
	part, err := recordPart(ctx, note.PartMove, s.From, s.Path, nil, nil)
	if err != nil {
		return note.UndoStep{}, err
	}
	move := v.rename
	if strings.HasSuffix(s.Path, "/") {
		move = v.moveDir
	}
	if err := move(from, to); err != nil {
		part.Failed()
		if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrNotExist) {
			return note.UndoStep{}, changedMeanwhile(to)
		}
		return note.UndoStep{}, FileError(err, from)
	}
	part.Landed("")
	return note.UndoStep{Op: "move", Path: s.Path, From: s.From}, nil
}

// undoMkdir removes a folder the change made. Remove takes only an empty
// folder: one that holds something now (saved into it since) is kept.
func (v *Engine) undoMkdir(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	part, err := recordPart(ctx, note.PartRmdir, s.Path, "", nil, nil)
	if err != nil {
		return note.UndoStep{}, err
	}
	if err := v.root.Remove(s.Path); err != nil {
		part.Failed()
		return note.UndoStep{Op: "rmdir", Path: s.Path, Note: "kept: it is not empty now"}, nil
	}
	part.Landed("")
	return note.UndoStep{Op: "rmdir", Path: s.Path}, nil
}

// undoRmdir makes a removed folder again: back from the trash when it is
// there still, empty.
func (v *Engine) undoRmdir(ctx context.Context, s changes.Step) (note.UndoStep, error) {
	if s.From != "" && strings.HasPrefix(s.From, TrashDir+"/") {
		if entries, err := fs.ReadDir(v.root.FS(), s.From); err == nil && len(entries) == 0 {
			if moved, err := v.backFromTrash(ctx, s.From, s.Path, true); err != nil || moved {
				return note.UndoStep{Op: "mkdir", Path: s.Path, From: s.From}, err
			}
		}
	}
	done, err := v.madeDirs(ctx, s.Path)
	if err != nil {
		return note.UndoStep{}, err
	}
	err = v.root.MkdirAll(s.Path, 0o755)
	done()
	if err != nil {
		return note.UndoStep{}, FileError(err, s.Path)
	}
	return note.UndoStep{Op: "mkdir", Path: s.Path}, nil
}

// backFromTrash moves what a change put in the trash (from) back to to,
// recorded as a move; moved is false when it could not be moved (then the
// caller makes it anew).
func (v *Engine) backFromTrash(ctx context.Context, from, to string, folder bool) (moved bool, err error) {
	move, rfrom, rto := v.rename, from, to
	if folder {
		move, rfrom, rto = v.moveDir, from+"/", to+"/"
	}
	part, err := recordPart(ctx, note.PartMove, rfrom, rto, nil, nil)
	if err != nil {
		return false, err
	}
	if err := move(from, to); err != nil {
		part.Failed()
		return false, nil
	}
	part.Landed("")
	return true, nil
}

// undoError is err of an undo's write to p, as the tools say it.
func undoError(err error, p string) error {
	var e *errors.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, atomicfile.ErrBusy) {
		return busy(err, p)
	}
	return FileError(err, p)
}

// madeDirs records, in ctx's change, the folders a write is about to make
// on the way to dir (each missing one, outermost first), so that an undo
// removes them again; done, once the write is made, says which it made.
// The trash and other dot folders are Obsidian's, and not recorded.
func (v *Engine) madeDirs(ctx context.Context, dir string) (done func(), err error) {
	if changes.In(ctx) == nil || dir == "" || note.InDotFolder(dir+"/x") {
		return func() {}, nil
	}
	var missing []string
	for d := dir; d != "" && d != "."; d = note.Dir(d) {
		if _, err := v.root.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	var parts []*changes.Part
	var paths []string
	for i := len(missing) - 1; i >= 0; i-- {
		part, err := recordPart(ctx, note.PartMkdir, missing[i], "", nil, nil)
		if err != nil {
			for _, p := range parts {
				p.Failed()
			}
			return nil, err
		}
		parts, paths = append(parts, part), append(paths, missing[i])
	}
	return func() {
		for i, p := range parts {
			if ok, err := v.isFolder(paths[i]); err == nil && ok {
				p.Landed("")
			} else {
				p.Failed()
			}
		}
	}, nil
}
