// Package vaultindex is the native engine's index of a vault: a full-text
// index ranked with BM25F (a title, alias, heading or tag match counts more
// than one in the body), with phrases, exclusions, OR, filters, and
// character pairs for the scripts written without spaces (Chinese,
// Japanese, Thai, Lao, Khmer, Myanmar), and each note's structure (headings, blocks, tags, links,
// properties) for the outline, link-graph, tag and property tools.
//
// It is built on the first call that needs it (the server makes one as a
// client connects: its prompt notes are found by tag), and it is never
// stale: before every answer it checks what changed on disk since the
// last answer (Obsidian, sync and editors all write behind the server's
// back) and re-reads just that. Given a Store, it keeps a snapshot of
// itself between runs (persist.go, snapshot.go), so that a restart reads
// only the notes that changed, and of a build stopped part way, the rest; a build of many notes lets searches answer
// from the part done (building.go). It reads the vault only through a
// Source, so it knows nothing of paths on disk or of the jail the vault
// package keeps.
package vaultindex

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// QuietListing is what a Source with Changes may also offer: its
// listing without a walk of its folders, when Changed has just said,
// completely, that nothing changed since it last asked. Its Files then
// made the listing after that earlier Changed, and nothing has come or
// gone since; ok is false when the Source cannot vouch for it (no
// listing yet, a setting that shapes the listing changed), and the
// folders are walked.
type QuietListing interface {
	FilesUnchanged() (files []string, ok bool)
}

// Stamp identifies one version of a file.
type Stamp struct {
	Mod  time.Time
	Size int64
	// ID is the file's identity on its file system (the inode number on
	// Unix; 0 where the Source cannot tell): a file replaced by another of
	// the same size and time is still seen as changed.
	ID uint64
}

// Same says whether two stamps are of the same version of a file.
func (s Stamp) Same(o Stamp) bool { return s.Mod.Equal(o.Mod) && s.Size == o.Size && s.ID == o.ID }

// readBatch is how many notes a refresh reads and parses at once.
const readBatch = 256

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

// A posting is one note's counts of one term, per field, packed in 32
// bits (there are millions; see plist): the body's count in the low byte
// (up to 255), then four bits (up to 15) for each other field.

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
	path      string
	stamp     Stamp
	readAt    time.Time
	lens      [nFields]uint32
	meta      *metadata.Note
	extra     any  // see WithExtra
	madeExtra bool // extra is made (it may be nil)
	// anchors are the term ids of each link's line, parallel to
	// meta.Links (anchors.go); snapAnchors their texts as a snapshot
	// keeps them, until install turns them into ids.
	anchors     [][]uint32
	snapAnchors [][]string
	// targets are the notes its links lead to (-1: none, or itself),
	// resolved at generation targetsAt (Index.resolveGen).
	targets   []int32
	targetsAt uint64
}

// Index indexes one vault. Its methods are safe for concurrent use.
type Index struct {
	src     Source
	onBuild func(Build) (end func()) // see WithBuildHook; nil: none
	keep    *keeper                  // see WithStore; nil: none
	logger  *slog.Logger
	// patience is how long a search waits for a build (WithPatience);
	// build is the large build in progress, if any (see building.go).
	patience time.Duration
	build    atomic.Pointer[building]
	// queued counts the calls waiting for the lock outside a build's
	// patience path (run): one that arrived while a refresh held the lock,
	// before the build it started was registered, is let in between
	// batches too, else it waited for the whole build past its patience.
	queued atomic.Int32
	// stop ends builds when the index is closed; builds counts them.
	stopMu sync.Mutex
	stop   context.Context
	cancel context.CancelFunc
	builds sync.WaitGroup

	mu sync.Mutex
	// refreshed is when the last refresh started; a call that arrived
	// before it needs no refresh of its own.
	refreshed time.Time
	built     bool

	docs     []*doc // by id; nil for a note taken out (see plist)
	dead     int    // such notes whose postings are still in the lists
	byPath   map[string]uint32
	racy     map[uint32]bool   // notes read too soon after a write (see racyWindow)
	termID   map[string]uint32 // nil: look in sorted (dict.go)
	sorted   []uint32          // term ids in the order of their text; nil: not kept
	fresh    map[string]uint32 // terms added in the current refresh stage
	termText []string
	postings []plist         // by term
	sealed   sealed          // the positions moved to a file (sealed.go)
	tails    int             // bytes of positions still in memory since the last seal
	sealAt   int             // sealAt, but in tests
	totals   [nFields]uint64 // summed field lengths, for the averages
	count    int             // live notes

	linkIx  *links.Index
	linkFor []string // the listing linkIx was built from
	// anchorsOf finds the links whose lines hold a term (anchors.go).
	anchorsOf map[uint32][]anchorRef
	// resolveGen changes whenever a link may lead elsewhere (notes
	// added, taken out or renumbered, the listing changed): a note's
	// links resolved at another generation are resolved again.
	resolveGen uint64
	graph      *graph // nil when it must be computed again

	extra   Extra       // see WithExtra; nil: none
	extraOn atomic.Bool // extras are asked for: reads make them
	// changes counts the notes added and taken out (and snapshots
	// loaded): what EachExtra's caller compares to skip a walk.
	changes uint64
}

// Option configures New.
type Option func(*Index)

// WithBuildHook runs begin before the index reads many notes at once (its
// first build, or a large change) or loads a saved snapshot, and the
// function it returns after. A build makes garbage fast and keeps most of
// what it makes; a load keeps nearly all it allocates. So a program may
// collect less often meanwhile and give the garbage back to the system
// afterwards; that is the program's choice, not the index's.
func WithBuildHook(begin func(Build) (end func())) Option {
	return func(ix *Index) { ix.onBuild = begin }
}

// Build says what the index is about to do (WithBuildHook).
type Build struct {
	// Load is set for loading a snapshot of Size bytes; else the index
	// reads many notes.
	Load bool
	Size int64
}

// New returns an index of src; nothing is read until it is first used.
func New(src Source, opts ...Option) *Index {
	ix := &Index{src: src, logger: slog.New(slog.DiscardHandler), patience: DefaultPatience, sealAt: sealAt}
	ix.stop, ix.cancel = context.WithCancel(context.Background())
	for _, o := range opts {
		o(ix)
	}
	return ix
}

// view runs fn on an up-to-date index, under the lock.
func (ix *Index) view(ctx context.Context, fn func() error) error {
	return ix.run(ctx, 0, func(*note.Partial) error { return fn() })
}

// run runs fn on an up-to-date index, under the lock. A large build in
// progress (see building.go) is waited for, at most patience when that is
// not 0: then fn runs on the notes indexed so far, and is told so.
func (ix *Index) run(ctx context.Context, patience time.Duration, fn func(*note.Partial) error) error {
	arrived := time.Now()
	// Patience counts from the call's arrival, however many builds or
	// refreshes it waits behind.
	left := func() time.Duration {
		if patience <= 0 {
			return 0
		}
		return max(patience-time.Since(arrived), time.Nanosecond)
	}
	for {
		b, err := ix.waitBuild(ctx, left())
		if err != nil {
			return err
		}
		if b != nil {
			if done, err := ix.runPartial(ctx, b, fn); done {
				return err
			}
			continue // it ended meanwhile
		}
		ix.queued.Add(1)
		ix.mu.Lock()
		ix.queued.Add(-1)
		if b := ix.build.Load(); b != nil {
			// One began while this call waited for the lock, which it got
			// between two of its batches: out of patience, it answers from
			// the notes indexed so far; else it waits for the rest.
			if patience > 0 && time.Since(arrived) >= patience {
				// It has not waited in waitBuild, which reports progress:
				// it says once how far the build is (the client asked
				// to know it, and gets a part).
				b.report(ctx)
				err := ix.partial(ctx, b, fn)
				ix.mu.Unlock()
				return err
			}
			ix.mu.Unlock()
			continue
		}
		if err := ctx.Err(); err != nil {
			ix.mu.Unlock()
			return err
		}
		if !ix.built || !ix.refreshed.After(arrived) {
			handed, err := ix.refresh(ctx)
			if handed {
				continue // the lock went to a build of many notes: wait for it
			}
			if err != nil {
				ix.mu.Unlock()
				return err
			}
		}
		err = fn(nil)
		if ix.saveDue() {
			ix.saveLater()
		}
		ix.mu.Unlock()
		return err
	}
}

// add merges a parsed note into the index, under a new id above every
// other (see plist).
func (ix *Index) add(pn *parsedNote) {
	id := uint32(len(ix.docs))
	ix.docs = append(ix.docs, nil)
	d := &doc{path: pn.path, stamp: pn.stamp, readAt: pn.readAt, lens: pn.lens, meta: pn.meta, extra: pn.extra, madeExtra: pn.madeExtra}
	from := int32(0)
	ids := make([]uint32, len(pn.terms))
	for l, term := range pn.terms {
		var t uint32
		if pn.global[l] >= 0 {
			t = uint32(pn.global[l])
		} else {
			t = ix.term(term)
		}
		ids[l] = t
		pl := &ix.postings[t]
		pl.pushID(id, pack(pn.counts[l]))
		pl.pos = append(pl.pos, pn.pos[from:pn.posEnd[l]]...)
		from = pn.posEnd[l]
	}
	grown := len(pn.pos)
	ix.grew(grown)
	for f := range nFields {
		ix.totals[f] += uint64(d.lens[f])
	}
	if len(pn.anchors) > 0 {
		// The links of one line share its words.
		d.anchors = make([][]uint32, len(pn.anchors))
		byLine := map[int][]uint32{}
		for k, local := range pn.anchors {
			line := pn.meta.Links[k].Line
			if g, ok := byLine[line]; ok {
				d.anchors[k] = g
				continue
			}
			g := make([]uint32, len(local))
			for i, l := range local {
				g[i] = ids[l]
			}
			byLine[line], d.anchors[k] = g, g
		}
	}
	ix.docs[id] = d
	ix.indexAnchors(id)
	if d.racy() {
		ix.racy[id] = true
	}
	ix.byPath[pn.path] = id
	ix.count++
	ix.changes++
	ix.graph = nil
	ix.resolveGen++
}

// term returns the id of term s, adding it when new. New terms wait in
// fresh until the refresh stage ends (see refresh).
func (ix *Index) term(s string) uint32 {
	if t, ok := ix.lookup(s); ok {
		return t
	}
	if t, ok := ix.fresh[s]; ok {
		return t
	}
	t := uint32(len(ix.termText))
	s = strings.Clone(s) // see localTerms.strings
	ix.fresh[s] = t
	ix.termText = append(ix.termText, s)
	ix.postings = append(ix.postings, plist{})
	return t
}

// trim gives back the spare capacity append left in the postings after a
// large refresh, for good.
func (ix *Index) trim() {
	for t := range ix.postings {
		if d := ix.postings[t].data; cap(d) > len(d)+len(d)/8+4 {
			ix.postings[t].data = slices.Clone(d)
		}
	}
}

// remove takes notes out of the index. Their postings stay in the lists,
// skipped as dead, until enough are dead to compact (see plist): finding
// them costs a pass over every list, as a note keeps no list of its terms
// (that would cost a sixth of the index).
func (ix *Index) remove(ids []uint32) {
	for _, id := range ids {
		d := ix.docs[id]
		for f := range nFields {
			ix.totals[f] -= uint64(d.lens[f])
		}
		delete(ix.byPath, d.path)
		delete(ix.racy, id)
		ix.docs[id] = nil
		ix.dead++
		ix.count--
		ix.changes++
	}
	if len(ids) > 0 {
		ix.graph = nil
		ix.resolveGen++
	}
	if ix.compactDue() {
		ix.compact()
	}
}
