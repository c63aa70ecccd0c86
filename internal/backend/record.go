package backend

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// A write through the app is recorded as the engine's are: before it is
// made, each file it is to touch is read from the folder and recorded as
// a part of ctx's change (with its bytes); once the app has answered, each
// file is read again, and the part kept with the bytes it has then, or
// dropped when it did not change. The app's command answers once its
// write is made, so what the folder holds then is the write's outcome.
// Through the app there is no compare-and-swap: a program that saves the
// same note in the same instant would be folded into the change (an undo
// then finds the note as the change left it, and reverts both); the
// engine's own writes never are. A rename or move through the app is
// recorded with the notes that link to the note (the index's backlinks),
// whose links Obsidian rewrites per its setting.

// appWatch is one write through the app being recorded.
type appWatch struct {
	v     *native.Engine
	parts []watched
}

type watched struct {
	part         *changes.Part
	op, path, to string
	before       []byte
	exists       bool
}

// watchApp records the parts of a write through the app (b is the side
// the call went to; nothing is recorded on the folder's side, whose
// engine records its own writes, nor without a change being recorded or
// the folder known). op is what the write does to the note at loc (a
// create's: its path), to its destination for a move. It returns the
// watch, whose done settles the parts, and an error when the record
// cannot keep the write (which must then not be made).
func (r *Router) watchApp(ctx context.Context, b side, op string, loc note.Locator, to string) (*appWatch, error) {
	rec := changes.In(ctx)
	v := r.native()
	if b.mode != CLI || rec == nil || v == nil {
		return nil, nil
	}
	w := &appWatch{v: v}
	p := loc.Path
	if op != note.PartCreate {
		info, err := v.FileInfo(ctx, loc)
		switch {
		case err == nil:
			p = info.Path
		case p == "" || op != note.PartEdit:
			return nil, nil // the app will say what is wrong
		}
	}
	if op == note.PartMove && to == "" {
		return nil, nil
	}
	var linking []string
	if op == note.PartMove {
		if bl, err := v.Backlinks(ctx, note.ByPath(p)); err == nil {
			for _, l := range bl.Backlinks {
				if l.Path != p && !slices.Contains(linking, l.Path) {
					linking = append(linking, l.Path)
				}
			}
		}
	}
	add := func(op, path, to string) error {
		before, exists := w.read(ctx, path)
		if op == note.PartEdit && !exists {
			op = note.PartCreate // an append that makes the note
		}
		if op == note.PartCreate && exists {
			op = note.PartEdit // a create that overwrites
		}
		var keep []byte
		if exists && op != note.PartMove {
			keep = before
		}
		part, err := rec.Part(op, path, to, keep, nil)
		if err != nil {
			return err
		}
		w.parts = append(w.parts, watched{part: part, op: op, path: path, to: to, before: before, exists: exists})
		return nil
	}
	if err := add(op, p, to); err != nil {
		return nil, err
	}
	for _, q := range linking {
		if err := add(note.PartEdit, q, ""); err != nil {
			w.done(err)
			return nil, err
		}
	}
	return w, nil
}

// read is the note's bytes in the folder, and whether it is there.
func (w *appWatch) read(ctx context.Context, p string) ([]byte, bool) {
	c, err := w.v.Read(ctx, note.ByPath(p))
	if err != nil {
		return nil, false
	}
	return []byte(c.Content), true
}

// done settles the parts once the app has answered (err: it failed).
func (w *appWatch) done(err error) {
	if w == nil {
		return
	}
	ctx := context.Background()
	for _, p := range w.parts {
		if err != nil {
			p.part.Failed()
			continue
		}
		switch p.op {
		case note.PartMove:
			_, fromThere := w.read(ctx, p.path)
			_, toThere := w.read(ctx, p.to)
			if !fromThere && toThere {
				p.part.Landed("")
			} else {
				p.part.Failed()
			}
		case note.PartDelete:
			if _, there := w.read(ctx, p.path); !there {
				p.part.Landed("")
			} else {
				p.part.Failed()
			}
		default:
			// p.before is nil for a note that was not there.
			now, there := w.read(ctx, p.path)
			if there && (!p.exists || !bytes.Equal(now, p.before)) {
				p.part.Settle(p.before, now)
			} else {
				p.part.Failed()
			}
		}
	}
}

// recordedApp runs a write through the app (call), recorded as watchApp
// says.
func recordedApp[R any](ctx context.Context, r *Router, b side, op string, loc note.Locator, to string, call func() (R, error)) (R, error) {
	w, err := r.watchApp(ctx, b, op, loc, to)
	if err != nil {
		var zero R
		return zero, err
	}
	res, err := call()
	w.done(err)
	return res, err
}

// infoInFolder is where loc is in the folder, when it is known.
func (r *Router) infoInFolder(ctx context.Context, loc note.Locator) (note.Info, error) {
	v := r.native()
	if v == nil {
		return note.Info{}, errNoFolder
	}
	return v.FileInfo(ctx, loc)
}

var errNoFolder = errors.New("the vault folder is not known")
