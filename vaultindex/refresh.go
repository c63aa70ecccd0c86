package vaultindex

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// refresh brings the index up to date with the vault. When that means
// reading many notes, it starts a build that does so on its own goroutine,
// hands it the lock, and returns handed; the lock is not the caller's
// anymore.
func (ix *Index) refresh(ctx context.Context) (handed bool, err error) {
	started := time.Now()
	// Ask what changed before listing: a change after this point is seen by
	// the next refresh.
	var changed map[string]bool // nil: check every note
	if c, ok := ix.src.(Changes); ok {
		paths, complete := c.Changed()
		if complete && ix.built {
			changed = make(map[string]bool, len(paths))
			for _, p := range paths {
				changed[p] = true
			}
		}
	}
	var files []string
	if !ix.built && ix.keep != nil && !ix.keep.tried {
		// The vault is listed while the snapshot loads, on another core:
		// the check of every note needs both, and neither needs the other
		// (a third of a restart's time on the Help vault).
		listed := make(chan error, 1)
		go func() {
			var err error
			files, err = ix.src.Files()
			listed <- err
		}()
		ix.load()
		err = <-listed
	} else if q, ok := ix.src.(QuietListing); ok && changed != nil && len(changed) == 0 && ix.built {
		// Nothing came or went since the last refresh, which listed the
		// vault after its own Changed: that listing stands, and a query
		// pays no walk of the folders (a Dataview folder query at 10,000
		// notes: 1.3 of its 1.5 ms).
		var quiet bool
		if files, quiet = q.FilesUnchanged(); !quiet {
			files, err = ix.src.Files()
		}
	} else {
		files, err = ix.src.Files()
	}
	if err != nil {
		return false, err
	}
	if ix.byPath == nil {
		ix.byPath = map[string]uint32{}
		ix.termID = map[string]uint32{}
		ix.fresh = map[string]uint32{}
		ix.racy = map[uint32]bool{}
		ix.anchorsOf = map[uint32][]anchorRef{}
	}
	stale := ix.takeOut(files, changed)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if len(stale) > yieldAbove {
		// Not bound to the call that started it: every call waits on it
		// alike, and one that gives up does not stop it.
		ix.stopMu.Lock()
		stop := ix.stop
		ix.builds.Add(1)
		ix.stopMu.Unlock()
		b, end := ix.startBuild(len(stale))
		first := !ix.built && ix.keep != nil
		go func() {
			defer ix.builds.Done()
			stale, waited := stale, false
			if first {
				stale, waited = ix.claimBuild(stop, b, stale, files)
			}
			t0, before := time.Now(), ix.count
			if ix.readNotes(stop, stale, b) == nil {
				ix.finish(files, started)
				msg := "search index built"
				if waited {
					msg = "search index loaded from the process that built it"
				}
				ix.logger.Info(msg, "notes", ix.count, "read", len(stale), "took", time.Since(t0).Round(time.Millisecond))
				if ix.saveDue() {
					ix.saveLater()
				}
			} else {
				ix.savePart(len(stale)-(ix.count-before), t0)
			}
			if ix.keep != nil && !ix.keep.saving {
				ix.keep.releaseBuild() // no save to wait for
			}
			end()
			ix.mu.Unlock()
		}()
		return true, nil
	}
	if err := ix.readNotes(ctx, stale, nil); err != nil {
		// The notes taken out were not all read again, and the watcher
		// will not report them twice: the next refresh checks every note.
		ix.linkIx, ix.linkFor = nil, nil
		return false, err
	}
	ix.finish(files, started)
	return false, nil
}

// readNotes reads and parses the stale notes in parallel, a batch at a
// time, merging each batch into the postings in order: the parsed form of
// only one batch is alive at once, and its term maps are reused. b, when
// not nil, is the large build it is, which lets searches in between
// batches.
func (ix *Index) readNotes(ctx context.Context, stale []string, b *building) error {
	const batch = readBatch
	ix.needMap(len(stale))
	if len(stale) > batch && ix.onBuild != nil {
		// The program may tune its collector for a large build (see
		// WithBuildHook); a library does not change process settings.
		defer ix.onBuild(Build{})()
	}
	// Batch k+1 is parsed (on every core) while batch k is merged, so the
	// serial merge does not leave a core idle. Parsing looks terms up in
	// the dictionary, which therefore does not change during a stage: the
	// merge puts new terms aside (ix.fresh) until both are done.
	parse := func(from int) []*parsedNote {
		part := stale[from:min(len(stale), from+batch)]
		ps := make([]*parsedNote, len(part))
		parallel(len(part), func(i int) { ps[i] = ix.read(part[i]) })
		return ps
	}
	var cur []*parsedNote
	if len(stale) > 0 {
		cur = parse(0)
	}
	for from := 0; from < len(stale); from += batch {
		var next []*parsedNote
		var wg sync.WaitGroup
		if from+batch < len(stale) && ctx.Err() == nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next = parse(from + batch)
			}()
		}
		for _, pn := range cur {
			if !pn.gone {
				ix.add(pn)
			}
			pn.release()
		}
		wg.Wait()
		ix.endStage()
		if err := ctx.Err(); err != nil {
			for _, pn := range next {
				pn.release()
			}
			return err
		}
		if b != nil {
			ix.between(b, len(cur))
		}
		cur = next
	}
	if len(stale) > batch {
		ix.trim()
	}
	return nil
}

// finish ends a refresh that read every note it had to.
func (ix *Index) finish(files []string, started time.Time) {
	if ix.linkIx == nil || !sameSlice(ix.linkFor, files) {
		if added, removed, ok := diffSorted(ix.linkFor, files); ok && ix.linkIx != nil {
			for _, f := range removed {
				ix.linkIx.Remove(f)
			}
			for _, f := range added {
				ix.linkIx.Add(f)
			}
		} else {
			ix.linkIx = links.NewIndex(files)
		}
		ix.linkFor = files
		ix.graph = nil
		ix.resolveGen++
	}
	ix.built = true
	ix.refreshed = started
}

// takeOut takes out of the index the notes that are gone or changed, and
// returns those to read (again): of the notes the watcher reports when
// changed is not nil and the listing is the one the index has, else of
// every note (checkAll).
func (ix *Index) takeOut(files []string, changed map[string]bool) (stale []string) {
	var out []uint32
	gone := 0
	switch {
	case changed == nil:
		stale, out, gone = ix.checkAll(files, nil)
	case sameSlice(files, ix.linkFor):
		stale, out, _ = ix.changedOnly(changed, nil, nil)
	default:
		// A note added or deleted changes the listing: the difference
		// says which, and the watcher the rest, without a look at every
		// note (0.4–0.7 s at 100,000 notes, for one note added).
		if added, removed, ok := diffSorted(ix.linkFor, files); ok {
			stale, out, gone = ix.changedOnly(changed, added, removed)
		} else {
			stale, out, gone = ix.checkAll(files, changed)
		}
	}
	ix.remove(out)
	if ix.keep != nil {
		ix.keep.dirty += gone + len(stale)
	}
	return stale
}

// changedOnly is what to read again and take out when the watcher knows
// every file that changed and the listing is the one the index was built
// from, but for the files added and removed: those files, the notes
// added, the notes removed (taken out only), and the notes read too soon
// after they were written to be sure of (racy), without looking at every
// note. out holds stale's notes that the index has, then the gone ones
// removed.
func (ix *Index) changedOnly(changed map[string]bool, added, removed []string) (stale []string, out []uint32, gone int) {
	isGone := make(map[string]bool, len(removed))
	for _, p := range removed {
		isGone[p] = true
	}
	for p := range changed {
		if id, ok := ix.byPath[p]; ok && !ix.racy[id] && !isGone[p] {
			stale = append(stale, p)
			out = append(out, id)
		}
	}
	for id := range ix.racy {
		if p := ix.docs[id].path; !isGone[p] {
			stale = append(stale, p)
			out = append(out, id)
		}
	}
	for _, p := range added {
		if _, ok := ix.byPath[p]; !ok && (note.IsMarkdown(p) || canvas.Is(p)) {
			stale = append(stale, p)
		}
	}
	slices.Sort(stale) // read in path order, as a full check does
	for _, p := range removed {
		if id, ok := ix.byPath[p]; ok {
			out = append(out, id)
			gone++
		}
	}
	return stale, out, gone
}

// maxListingDiff is the most files added and removed that are taken one by
// one (diffSorted); past it, every note is checked and the link index
// built anew, which a folder renamed or a sync of many files costs anyway.
const maxListingDiff = 1000

// diffSorted returns the files of now not in before, and those of before
// not in now, both listings sorted (as Source.Files lists them); ok is
// false when before is nil, or when they differ by more than
// maxListingDiff files.
func diffSorted(before, now []string) (added, removed []string, ok bool) {
	if before == nil {
		return nil, nil, false
	}
	i, j := 0, 0
	for i < len(before) || j < len(now) {
		switch {
		case i < len(before) && j < len(now) && before[i] == now[j]:
			i++
			j++
			continue
		case j == len(now) || i < len(before) && before[i] < now[j]:
			removed = append(removed, before[i])
			i++
		default:
			added = append(added, now[j])
			j++
		}
		if len(added)+len(removed) > maxListingDiff {
			return nil, nil, false
		}
	}
	return added, removed, true
}

// checkAll is what to read again and take out after comparing every note
// of the listing with the index: new notes, notes whose stamp moved (of
// those the watcher reports, when changed is not nil), and notes gone.
func (ix *Index) checkAll(files []string, changed map[string]bool) (stale []string, out []uint32, gone int) {
	notes := make([]string, 0, len(files))
	for _, f := range files {
		if note.IsMarkdown(f) || canvas.Is(f) {
			notes = append(notes, f)
		}
	}
	stamps := make([]Stamp, len(notes))
	errs := make([]error, len(notes))
	parallel(len(notes), func(i int) {
		id, ok := ix.byPath[notes[i]]
		switch {
		case !ok || ix.racy[id]:
			errs[i] = errStale
		case changed != nil && !changed[notes[i]]:
			stamps[i] = ix.docs[id].stamp // the watcher saw nothing happen to it
		default:
			stamps[i], errs[i] = ix.src.Stamp(notes[i])
		}
	})
	live := make(map[string]bool, len(notes))
	for i, p := range notes {
		live[p] = true
		if errs[i] == nil && stamps[i].Same(ix.docs[ix.byPath[p]].stamp) {
			continue
		}
		stale = append(stale, p)
	}
	// Take out every note that is gone or changed, in one pass over the
	// postings, before the changed ones are read again.
	for p, id := range ix.byPath {
		if !live[p] {
			out = append(out, id)
		}
	}
	gone = len(out)
	for _, p := range stale {
		if id, ok := ix.byPath[p]; ok {
			out = append(out, id)
		}
	}
	return stale, out, gone
}

// errStale marks a note to read again without asking for its stamp.
var errStale = errors.New("stale")

func (d *doc) racy() bool { return d.readAt.Sub(d.stamp.Mod) < racyWindow }

func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
