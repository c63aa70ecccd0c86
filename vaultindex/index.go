// Package vaultindex is the native engine's index of a vault: a full-text
// index ranked with BM25F (a title, alias, heading or tag match counts more
// than one in the body), with phrases, exclusions, OR, filters and CJK
// bigrams, and each note's structure (headings, blocks, tags, links,
// properties) for the outline, link-graph, tag and property tools.
//
// It is built on the first call that needs it, never at start-up, and it is
// never stale: before every answer it checks, at the cost of one stat per
// note and one per folder, what changed on disk since the last answer
// (Obsidian, sync and editors all write behind the server's back) and
// re-reads just that. It reads the vault only through a Source, so it knows
// nothing of paths on disk or of the jail the vault package keeps.
package vaultindex

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Source is the vault as the index reads it. *native.Engine implements it.
type Source interface {
	// Files lists every file of the vault, sorted, hidden ones left out.
	// The slice is shared and must not be modified.
	Files() ([]string, error)
	// Stamp returns what changes when the file at p changes.
	Stamp(p string) (Stamp, error)
	// ReadFile returns the file's bytes.
	ReadFile(p string) ([]byte, error)
}

// Changes is what a Source may also offer: which files may have changed
// since it was last asked, so that a refresh stats those instead of every
// note. complete is false when it cannot be sure (no watcher on this
// system, a lost event), and then every note is checked.
type Changes interface {
	Changed() (paths []string, complete bool)
}

// Stamp identifies one version of a file.
type Stamp struct {
	Mod  time.Time
	Size int64
}

// racyWindow: a file whose modification time is this close to when it was
// read may have changed again within the same timestamp tick, so it is read
// again on the next refresh (git's "racy clean" rule).
const racyWindow = 2 * time.Second

// The fields a note's words are counted in.
const (
	fTitle = iota
	fAlias
	fHeading
	fTag
	fPath
	fBody
	nFields
)

var fieldNames = [nFields]string{"title", "alias", "heading", "tag", "path", "body"}

// posting is one note's counts of one term, per field, packed in 8 bytes
// (there are millions): the body's count in the low byte (up to 255), then
// four bits (up to 15) for each other field.
type posting struct {
	doc uint32
	tf  uint32
}

// pack folds per-field counts into a posting's tf, saturating.
func pack(c [nFields]uint8) uint32 {
	v := uint32(c[fBody])
	for f := range fBody {
		v |= uint32(min(c[f], 15)) << (8 + 4*f)
	}
	return v
}

// fieldCount is field f's count in a packed tf.
func fieldCount(tf uint32, f int) uint32 {
	if f == fBody {
		return tf & 0xff
	}
	return tf >> (8 + 4*f) & 0xf
}

type doc struct {
	path   string
	stamp  Stamp
	readAt time.Time
	lens   [nFields]uint32
	meta   *metadata.Note
}

// Index indexes one vault. Its methods are safe for concurrent use.
type Index struct {
	src     Source
	onBuild func() (end func()) // see WithBuildHook; nil: none

	mu sync.Mutex
	// refreshed is when the last refresh started; a call that arrived
	// before it needs no refresh of its own.
	refreshed time.Time
	built     bool

	docs     []*doc // by id; nil for a free id
	free     []uint32
	byPath   map[string]uint32
	termID   map[string]uint32
	fresh    map[string]uint32 // terms added in the current refresh stage
	termText []string
	postings [][]posting
	totals   [nFields]uint64 // summed field lengths, for the averages
	count    int             // live notes

	linkIx  *links.Index
	linkFor []string // the listing linkIx was built from
	graph   *graph   // nil when it must be computed again
}

// Option configures New.
type Option func(*Index)

// WithBuildHook runs begin before the index reads many notes at once (its
// first build, or a large change), and the function it returns after.
// A build makes garbage fast and keeps most of what it makes, so a
// program may collect less often meanwhile and give the garbage back to
// the system afterwards; that is the program's choice, not the index's.
func WithBuildHook(begin func() (end func())) Option {
	return func(ix *Index) { ix.onBuild = begin }
}

// New returns an index of src; nothing is read until it is first used.
func New(src Source, opts ...Option) *Index {
	ix := &Index{src: src}
	for _, o := range opts {
		o(ix)
	}
	return ix
}

// view runs fn on an up-to-date index, under the lock.
func (ix *Index) view(ctx context.Context, fn func() error) error {
	arrived := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if !ix.built || !ix.refreshed.After(arrived) {
		if err := ix.refresh(ctx); err != nil {
			return err
		}
	}
	return fn()
}

// refresh brings the index up to date with the vault.
func (ix *Index) refresh(ctx context.Context) error {
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
	files, err := ix.src.Files()
	if err != nil {
		return err
	}
	if ix.byPath == nil {
		ix.byPath = map[string]uint32{}
		ix.termID = map[string]uint32{}
		ix.fresh = map[string]uint32{}
	}
	// Which notes need reading: new ones, and known ones whose stamp moved.
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
		case !ok || ix.docs[id].racy():
			errs[i] = errStale
		case changed != nil && !changed[notes[i]]:
			stamps[i] = ix.docs[id].stamp // the watcher saw nothing happen to it
		default:
			stamps[i], errs[i] = ix.src.Stamp(notes[i])
		}
	})
	live := make(map[string]bool, len(notes))
	var stale []string
	for i, p := range notes {
		live[p] = true
		if errs[i] == nil && stamps[i] == ix.docs[ix.byPath[p]].stamp {
			continue
		}
		stale = append(stale, p)
	}
	// Take out every note that is gone or changed, in one pass over the
	// postings, before the changed ones are read again.
	var out []uint32
	for p, id := range ix.byPath {
		if !live[p] {
			out = append(out, id)
		}
	}
	for _, p := range stale {
		if id, ok := ix.byPath[p]; ok {
			out = append(out, id)
		}
	}
	ix.remove(out)
	if err := ctx.Err(); err != nil {
		return err
	}
	// Read and parse in parallel, a batch at a time, merging each batch
	// into the postings in order: the parsed form of only one batch is
	// alive at once, and its term maps are reused.
	const batch = 256
	if len(stale) > batch && ix.onBuild != nil {
		// The program may tune its collector for a large build (see
		// WithBuildHook); a library does not change process settings.
		defer ix.onBuild()()
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
		maps.Copy(ix.termID, ix.fresh)
		clear(ix.fresh)
		if err := ctx.Err(); err != nil {
			for _, pn := range next {
				pn.release()
			}
			return err
		}
		cur = next
	}
	if len(stale) > batch {
		ix.trim()
	}
	if ix.linkIx == nil || !sameSlice(ix.linkFor, files) {
		ix.linkIx = links.NewIndex(files)
		ix.linkFor = files
		ix.graph = nil
	}
	ix.built = true
	ix.refreshed = started
	return nil
}

// errStale marks a note to read again without asking for its stamp.
var errStale = errors.New("stale")

func (d *doc) racy() bool { return d.readAt.Sub(d.stamp.Mod) < racyWindow }

func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// add merges a parsed note into the index.
func (ix *Index) add(pn *parsedNote) {
	var id uint32
	if n := len(ix.free); n > 0 {
		id = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		id = uint32(len(ix.docs))
		ix.docs = append(ix.docs, nil)
	}
	d := &doc{path: pn.path, stamp: pn.stamp, readAt: pn.readAt, lens: pn.lens, meta: pn.meta}
	for l, term := range pn.terms {
		var t uint32
		if pn.global[l] >= 0 {
			t = uint32(pn.global[l])
		} else {
			t = ix.term(term)
		}
		ps := ix.postings[t]
		if n := len(ps); n == 0 || ps[n-1].doc < id {
			// New ids come in increasing order while the index is built.
			ix.postings[t] = append(ps, posting{doc: id, tf: pack(pn.counts[l])})
			continue
		}
		at, _ := slices.BinarySearchFunc(ps, id, func(p posting, id uint32) int { return int(p.doc) - int(id) })
		ix.postings[t] = slices.Insert(ps, at, posting{doc: id, tf: pack(pn.counts[l])})
	}

	for f := range nFields {
		ix.totals[f] += uint64(d.lens[f])
	}
	ix.docs[id] = d
	ix.byPath[pn.path] = id
	ix.count++
	ix.graph = nil
}

// term returns the id of term s, adding it when new. New terms wait in
// fresh until the refresh stage ends (see refresh).
func (ix *Index) term(s string) uint32 {
	if t, ok := ix.termID[s]; ok {
		return t
	}
	if t, ok := ix.fresh[s]; ok {
		return t
	}
	t := uint32(len(ix.termText))
	ix.fresh[s] = t
	ix.termText = append(ix.termText, s)
	ix.postings = append(ix.postings, nil)
	return t
}

// trim gives back the spare capacity append left in the postings after a
// large refresh: a quarter of their memory, for good.
func (ix *Index) trim() {
	for t, ps := range ix.postings {
		if cap(ps) > len(ps)+len(ps)/8+4 {
			ix.postings[t] = slices.Clone(ps)
		}
	}
}

// remove takes notes out of the index. A note keeps no list of its terms
// (that would cost a sixth of the index), so their postings are found by
// looking each id up in every term's sorted postings, or, for many notes,
// by one filtering pass over all of them.
func (ix *Index) remove(ids []uint32) {
	if len(ids) == 0 {
		return
	}
	if len(ids) <= 8 {
		for t, ps := range ix.postings {
			for _, id := range ids {
				if at, ok := slices.BinarySearchFunc(ps, id, func(p posting, id uint32) int { return int(p.doc) - int(id) }); ok {
					ps = slices.Delete(ps, at, at+1)
				}
			}
			ix.postings[t] = ps
		}
	} else {
		gone := newSet(len(ix.docs))
		for _, id := range ids {
			gone.add(id)
		}
		for t, ps := range ix.postings {
			ix.postings[t] = slices.DeleteFunc(ps, func(p posting) bool { return gone.has(p.doc) })
		}
	}
	for _, id := range ids {
		d := ix.docs[id]
		for f := range nFields {
			ix.totals[f] -= uint64(d.lens[f])
		}
		delete(ix.byPath, d.path)
		ix.docs[id] = nil
		ix.free = append(ix.free, id)
		ix.count--
	}
	ix.graph = nil
}
