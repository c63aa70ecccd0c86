package native

import (
	"bytes"
	"context"
	"fmt"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// RenameHeading carries out plan (worked out by the tool from the note as
// it read it) as one journaled edit, as a note's rename is: the note first
// (its heading, and its own links to it), refused with REVISION_CONFLICT
// and nothing changed when it is not the version the plan was made from;
// then the links in the other notes, each a compare-and-swap. A crash part
// way is completed at the next start; a cancelled call stops between
// notes and answers what it did.
func (v *Engine) RenameHeading(ctx context.Context, plan note.HeadingPlan) (note.HeadingRenamed, error) {
	out := note.HeadingRenamed{Path: plan.Target, From: plan.Outline[plan.Index].Text, To: plan.To, Paths: []string{}}
	release, err := v.writing(ctx)
	if err != nil {
		return out, err
	}
	defer release()
	files, err := v.Files()
	if err != nil {
		return out, err
	}
	ix := links.NewIndex(files)
	j, err := v.startJournal(intent{Op: opRenameHeading, Heading: &plan})
	if err != nil {
		return out, err
	}
	res, renamed, n, err := v.renameHeadingIn(ctx, plan.Target, plan, ix, j, plan.IfMatch)
	if err == nil && !renamed {
		// The heading is no longer what the plan read: the note changed
		// between the tool's read and this write.
		err = errors.E(errors.RevisionConflict, "%s changed since it was read: its heading %q is not where it was; nothing was changed", plan.Target, out.From).
			With("path", plan.Target).With("etag", note.ETag(res.Old)).
			WithHint("Read the note's outline again and retry.")
	}
	if err != nil {
		j.finish(true) // nothing was changed
		return out, FileError(err, plan.Target)
	}
	out.ETag = note.ETag(res.New)
	w := v.eachNote(ctx, plan.Paths, func(p string) (int, error) {
		_, _, n, err := v.renameHeadingIn(ctx, p, plan, ix, j, "")
		return n, err
	})
	j.finish(w.complete)
	out.Notes, out.Links, out.Paths, out.Failed = w.notes, w.uses+n, w.paths, w.failed
	if n > 0 {
		out.Notes++
		out.Paths = append([]string{plan.Target}, out.Paths...)
	}
	if w.err != nil {
		return out, w.err
	}
	if w.short != nil {
		return out, partial(w.short, fmt.Sprintf("the heading %q was renamed to %q and %d links followed", out.From, out.To, out.Links), w.failedPaths())
	}
	return out, nil
}

// renameHeadingIn applies a heading's rename to the note at p, recording
// it in j when set: the heading (in its note) and the links to it. ifMatch,
// when set, must be the note's version. It is called with the write lock
// held.
func (v *Engine) renameHeadingIn(ctx context.Context, p string, plan note.HeadingPlan, ix *links.Index, j *journal, ifMatch string) (res atomicfile.Updated, renamed bool, n int, err error) {
	var change atomicfile.Change = atomicfile.Change(note.IfMatch(p, ifMatch, func(cur []byte) ([]byte, error) {
		out, r, k, err := patch.RenameHeading(cur, p, plan, ix)
		renamed, n = r, k
		return out, err
	}))
	if j != nil {
		change = j.noting(p, change)
	}
	res, err = v.update(ctx, p, v.RealPath(p), change)
	if err != nil {
		return res, false, 0, err
	}
	if !bytes.Equal(res.Old, res.New) {
		v.replay.noted(p, res.Old, res.New)
	}
	return res, renamed, n, nil
}
