package native

import (
	"bytes"
	"context"
	"io"

	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Every write of the engine is recorded, before it lands, in the change
// its call is making (changes.In): the bytes before, and what it does.
// A write the record cannot keep is not made. Writes of the engine's own
// (recovery completing a crashed edit) belong to no change.

// update is atomicfile.UpdateKnown on real (the note p, as the record
// names it), recorded. The part is recorded before the compare-and-swap
// begins, from the note as it is now, so that the write's window (read,
// write, exchange) is as short as without a record: another program that
// saves the note in place meets it no more often. Only when the note
// changes meanwhile is the part recorded again inside the window. The
// attempt that lands is the one kept, with the bytes that were there and
// those written.
func (v *Engine) update(ctx context.Context, p, real string, change atomicfile.Change) (atomicfile.Updated, error) {
	rec := changes.In(ctx)
	if rec == nil {
		return atomicfile.UpdateKnown(v.root, real, change, &v.published)
	}
	var part *changes.Part
	var before []byte // the bytes part was recorded with
	if now, err := atomicfile.ReadSettled(v.root, real, &v.published); err == nil {
		if out, err := change(now); err == nil && !bytes.Equal(out, now) {
			if part, err = rec.Part(note.PartEdit, p, "", now, out); err != nil {
				return atomicfile.Updated{}, err
			}
			before = now
		}
	}
	recorded := func(cur []byte) ([]byte, error) {
		out, err := change(cur)
		if err != nil || bytes.Equal(out, cur) || part != nil && bytes.Equal(cur, before) {
			return out, err
		}
		if part != nil {
			// Recorded from other bytes: the note changed first.
			part.Again(out)
		} else if part, err = rec.Part(note.PartEdit, p, "", cur, out); err != nil {
			return nil, err
		}
		before = cur
		return out, nil
	}
	res, err := atomicfile.UpdateKnown(v.root, real, recorded, &v.published)
	switch {
	case part == nil:
	case err != nil || bytes.Equal(res.Old, res.New):
		part.Failed()
	default:
		part.Settle(res.Old, res.New)
	}
	return res, err
}

// recordPart records a part of ctx's change before its write (none
// without a change).
func recordPart(ctx context.Context, op, p, to string, before, after []byte) (*changes.Part, error) {
	return changes.In(ctx).Part(op, p, to, before, after)
}

// readBefore is the bytes of p before a change that deletes or replaces
// it, for the record: only when a change is being recorded, and only from
// a regular file (opened without waiting: a FIFO would block).
func (v *Engine) readBefore(ctx context.Context, p string) ([]byte, error) {
	if changes.In(ctx) == nil {
		return nil, nil
	}
	f, err := openRegular(v.root, p, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
