package vaultindex

import (
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

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

// parsedNote is a note read and tokenized, ready to merge. Its terms are
// numbered locally, so that tokenizing allocates once per distinct word,
// not once per word.
type parsedNote struct {
	path      string
	gone      bool
	stamp     Stamp
	readAt    time.Time
	meta      *metadata.Note
	extra     any
	madeExtra bool
	local     *localTerms      // numbers the terms as they are met
	terms     []string         // by local number
	counts    [][nFields]uint8 // by local number
	// seq is the body's terms by local number, in order, as the phrase
	// check tokenizes it (no CJK unigrams): each term's positions.
	seq []int32
	// pos is each term's positions, encoded (appendPositions), by local
	// number: term l's end at posEnd[l].
	pos    []byte
	posEnd []int32
	// global is each term's id in the index when it was already known as
	// the note was parsed (looked up then, in parallel), else -1.
	global []int64
	lens   [nFields]uint32
	// anchors are the words of each link's line, by local number
	// (lineTerms), parallel to meta.Links.
	anchors [][]int32
}

// release returns what the note no longer needs once merged.
func (pn *parsedNote) release() {
	pn.seq, pn.pos, pn.posEnd = nil, nil, nil
	if pn.local != nil {
		pn.local.reset()
		localTermsPool.Put(pn.local)
		pn.local = nil
	}
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
	if ix.extra != nil && ix.extraOn.Load() {
		pn.extra, pn.madeExtra = ix.extra(p, data, st.Mod), true
	}
	if canvas.Is(p) {
		data, pn.meta = canvasText(data)
	} else {
		pn.meta = metadata.Parse(data)
	}
	pn.local = localTermsPool.Get().(*localTerms)
	count := func(f int) func(*token) {
		return func(t *token) {
			id, added := pn.local.id(t.term)
			if added {
				pn.counts = append(pn.counts, [nFields]uint8{})
			}
			if c := &pn.counts[id]; c[f] < 255 {
				c[f]++
			}
			pn.lens[f]++
			if f == fBody && !t.uni {
				pn.seq = append(pn.seq, id)
			}
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
	// The bytes are not changed while they are tokenized, and no token
	// keeps them: no copy of every note's text (353 MB at 100,000 notes).
	tokenize(unsafe.String(unsafe.SliceData(data), len(data)), true, body)
	if !canvas.Is(p) {
		// Every word of a line was met in the text just tokenized: this
		// only looks them up.
		pn.lineTerms(data)
	}
	pn.terms = pn.local.strings()
	// Reading the index's dictionary here is safe: it does not change
	// while a batch is parsed (see refresh).
	pn.global = make([]int64, len(pn.terms))
	for l, term := range pn.terms {
		pn.global[l] = -1
		if t, ok := ix.lookup(term); ok {
			pn.global[l] = int64(t)
		}
	}
	pn.encodePositions()
	return pn
}

// encodePositions encodes the body's positions of each term (a counting
// sort of seq, then appendPositions), while the note is parsed on every
// core: the merge, one note after another, only copies them.
func (pn *parsedNote) encodePositions() {
	start := make([]int32, len(pn.terms)+1)
	for _, l := range pn.seq {
		start[l+1]++
	}
	for l := range pn.terms {
		start[l+1] += start[l]
	}
	flat := make([]uint32, len(pn.seq))
	next := slices.Clone(start[:len(pn.terms)])
	for p, l := range pn.seq {
		flat[next[l]] = uint32(p)
		next[l]++
	}
	pn.posEnd = make([]int32, len(pn.terms))
	for l := range pn.terms {
		pn.pos = appendPositions(pn.pos, flat[start[l]:start[l+1]])
		pn.posEnd[l] = int32(len(pn.pos))
	}
}

// canvasText is what a canvas says (canvas.Text) and its links, each at
// the line of the canvas file that holds its node. A canvas has no
// properties, tags or outline of its own in Obsidian, so none are kept.
func canvasText(data []byte) ([]byte, *metadata.Note) {
	text, lineOf := canvas.Text(data)
	m := metadata.Parse(text)
	meta := &metadata.Note{BodyLine: 1, Lines: metadata.LinesOf(data).Count(), Links: m.Links}
	for i := range meta.Links {
		if l := meta.Links[i].Line; l < len(lineOf) {
			meta.Links[i].Line = lineOf[l]
		}
	}
	return text, meta
}

// text is the searchable text of a file of the index: a note's content,
// a canvas's text (canvasText), with the canvas line of each of its lines
// (nil for a note).
func (ix *Index) text(p string) ([]byte, []int, error) {
	data, err := ix.src.ReadFile(p)
	if err != nil || !canvas.Is(p) {
		return data, nil, err
	}
	text, lineOf := canvas.Text(data)
	return text, lineOf, nil
}

// onCanvasLines gives snippets of a canvas's text the lines of the canvas
// file.
func onCanvasLines(s []note.Snippet, lineOf []int) []note.Snippet {
	if lineOf == nil {
		return s
	}
	for i := range s {
		if s[i].Line < len(lineOf) {
			s[i].Line = lineOf[s[i].Line]
		}
	}
	return s
}
