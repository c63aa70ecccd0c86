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
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Source is the vault as the index reads it. *vault.Vault implements it.
type Source interface {
	// Files lists every file of the vault, sorted, hidden ones left out.
	// The slice is shared and must not be modified.
	Files() ([]string, error)
	// Stamp returns what changes when the file at p changes.
	Stamp(p string) (Stamp, error)
	// ReadFile returns the file's bytes.
	ReadFile(p string) ([]byte, error)
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

// posting is one note's counts of one term, per field (saturating).
type posting struct {
	doc uint32
	tf  [nFields]uint8
}

type doc struct {
	path   string
	stamp  Stamp
	readAt time.Time
	lens   [nFields]uint32
	// seq is the body's position-taking tokens as term ids, in order, for
	// phrases.
	seq []uint32
	// uniq is every term id the note has a posting for.
	uniq []uint32
	meta *metadata.Note
}

// Index indexes one vault. Its methods are safe for concurrent use.
type Index struct {
	src Source

	mu sync.Mutex
	// refreshed is when the last refresh started; a call that arrived
	// before it needs no refresh of its own.
	refreshed time.Time
	built     bool

	docs     []*doc // by id; nil for a free id
	free     []uint32
	byPath   map[string]uint32
	termID   map[string]uint32
	termText []string
	postings [][]posting
	totals   [nFields]uint64 // summed field lengths, for the averages
	count    int             // live notes

	files   []string // the last listing
	linkIx  *links.Index
	linkFor []string // the listing linkIx was built from
	graph   *graph   // nil when it must be computed again
}

// New returns an index of src; nothing is read until it is first used.
func New(src Source) *Index {
	return &Index{src: src}
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
	files, err := ix.src.Files()
	if err != nil {
		return err
	}
	if ix.byPath == nil {
		ix.byPath = map[string]uint32{}
		ix.termID = map[string]uint32{}
	}
	ix.files = files
	// Which notes need reading: new ones, and known ones whose stamp moved.
	notes := make([]string, 0, len(files))
	for _, f := range files {
		if isNote(f) {
			notes = append(notes, f)
		}
	}
	stamps := make([]Stamp, len(notes))
	errs := make([]error, len(notes))
	parallel(len(notes), func(i int) {
		if id, ok := ix.byPath[notes[i]]; ok && !ix.docs[id].racy() {
			stamps[i], errs[i] = ix.src.Stamp(notes[i])
		} else {
			errs[i] = errStale
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
	for p, id := range ix.byPath {
		if !live[p] {
			ix.remove(id)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Read and parse in parallel; merge into the postings in order.
	parsed := make([]*parsedNote, len(stale))
	parallel(len(stale), func(i int) { parsed[i] = ix.read(stale[i]) })
	for _, pn := range parsed {
		if id, ok := ix.byPath[pn.path]; ok {
			ix.remove(id)
		}
		if pn.gone {
			continue
		}
		ix.add(pn)
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

var errStale = errorString("stale")

type errorString string

func (e errorString) Error() string { return string(e) }

func (d *doc) racy() bool { return d.readAt.Sub(d.stamp.Mod) < racyWindow }

func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// isNote reports whether p is a Markdown note, the files the text index
// and the structure tools cover.
func isNote(p string) bool {
	return strings.EqualFold(note.Ext(p), "md")
}

// parallel runs fn(0..n-1) on every core.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	const chunk = 64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				from := next
				next += chunk
				mu.Unlock()
				if from >= n {
					return
				}
				for i := from; i < min(from+chunk, n); i++ {
					fn(i)
				}
			}
		}()
	}
	wg.Wait()
}

// parsedNote is a note read and tokenized, ready to merge.
type parsedNote struct {
	path   string
	gone   bool
	stamp  Stamp
	readAt time.Time
	meta   *metadata.Note
	counts map[string]*[nFields]uint8
	lens   [nFields]uint32
	seq    []string
}

func (ix *Index) read(p string) *parsedNote {
	pn := &parsedNote{path: p}
	st, err := ix.src.Stamp(p)
	if err != nil {
		pn.gone = true
		return pn
	}
	pn.readAt = time.Now()
	data, err := ix.src.ReadFile(p)
	if err != nil {
		pn.gone = true
		return pn
	}
	// A size that disagrees with what was read means the file changed in
	// between: keep the stamp that makes the next refresh read it again.
	if int64(len(data)) != st.Size {
		st.Size = -1
	}
	pn.stamp = st
	pn.meta = metadata.Parse(data)
	pn.counts = map[string]*[nFields]uint8{}
	count := func(f int) func(*token) {
		return func(t *token) {
			c := pn.counts[string(t.term)]
			if c == nil {
				c = new([nFields]uint8)
				pn.counts[string(t.term)] = c
			}
			if c[f] < 255 {
				c[f]++
			}
			pn.lens[f]++
		}
	}
	tokenize(note.Stem(p), true, count(fTitle))
	tokenize(note.Dir(p), true, count(fPath))
	for _, a := range pn.meta.Aliases {
		tokenize(a, true, count(fAlias))
	}
	for _, h := range pn.meta.Headings {
		tokenize(h.Text, true, count(fHeading))
	}
	for _, t := range pn.meta.Tags {
		tokenize(t.Name, true, count(fTag))
	}
	body := count(fBody)
	tokenize(string(data), true, func(t *token) {
		body(t)
		if !t.uni {
			pn.seq = append(pn.seq, string(t.term))
		}
	})
	return pn
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
	d.uniq = make([]uint32, 0, len(pn.counts))
	for term, c := range pn.counts {
		t := ix.term(term)
		d.uniq = append(d.uniq, t)
		ps := ix.postings[t]
		at, _ := slices.BinarySearchFunc(ps, id, func(p posting, id uint32) int { return int(p.doc) - int(id) })
		ix.postings[t] = slices.Insert(ps, at, posting{doc: id, tf: *c})
	}
	d.seq = make([]uint32, len(pn.seq))
	for i, term := range pn.seq {
		d.seq[i] = ix.termID[term]
	}
	for f := range nFields {
		ix.totals[f] += uint64(d.lens[f])
	}
	ix.docs[id] = d
	ix.byPath[pn.path] = id
	ix.count++
	ix.graph = nil
}

func (ix *Index) term(s string) uint32 {
	if t, ok := ix.termID[s]; ok {
		return t
	}
	t := uint32(len(ix.termText))
	ix.termID[s] = t
	ix.termText = append(ix.termText, s)
	ix.postings = append(ix.postings, nil)
	return t
}

// remove takes a note out of the index.
func (ix *Index) remove(id uint32) {
	d := ix.docs[id]
	for _, t := range d.uniq {
		ps := ix.postings[t]
		if at, ok := slices.BinarySearchFunc(ps, id, func(p posting, id uint32) int { return int(p.doc) - int(id) }); ok {
			ix.postings[t] = slices.Delete(ps, at, at+1)
		}
	}
	for f := range nFields {
		ix.totals[f] -= uint64(d.lens[f])
	}
	delete(ix.byPath, d.path)
	ix.docs[id] = nil
	ix.free = append(ix.free, id)
	ix.count--
	ix.graph = nil
}
