package vaultindex

import (
	"bufio"
	"io"
	"slices"
)

// plist is one term's postings: for each note that has the term, in
// increasing id order, the gap from the previous note's id and the packed
// per-field counts (see pack), both as varints. Three bytes a posting on
// average instead of eight: the postings are most of the index, 30
// million of them at 100,000 notes.
//
// Lists only grow at their end: a note read (again) always gets a new id,
// above every other. A note taken out leaves its postings in place, dead
// (its docs entry is nil), until compact drops them all at once.
type plist struct {
	data []byte
	pos  []byte // each posting's body positions, in turn (positions.go)
	n    uint32 // postings in data, dead ones included
	last uint32 // id of the last one
}

// pushID appends a posting for note id, which is above every id in l,
// with its counts; its positions are the caller's to append to l.pos.
func (l *plist) pushID(id, tf uint32) {
	gap := id
	if l.n > 0 {
		gap = id - l.last
	}
	l.data = appendUvarint(appendUvarint(l.data, gap), tf)
	l.n++
	l.last = id
}

func appendUvarint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// uvarint reads a varint of at most 32 bits at b[i:], returning it and
// the index after it; ok is false for a truncated or oversized one.
func uvarint(b []byte, i int) (v uint32, next int, ok bool) {
	if i < len(b) && b[i] < 0x80 { // most are one byte
		return uint32(b[i]), i + 1, true
	}
	var s uint
	for ; i < len(b); i++ {
		c := b[i]
		if s == 28 && c > 0x0f {
			return 0, i, false
		}
		v |= uint32(c&0x7f) << s
		if c < 0x80 {
			return v, i + 1, true
		}
		s += 7
	}
	return 0, i, false
}

// each calls fn for every posting of l, dead ones included, in id order.
// l's data was checked when it was made or loaded, so it always decodes.
func (l *plist) each(fn func(id, tf uint32)) {
	id := uint32(0)
	for i := 0; i < len(l.data); {
		gap, j, _ := uvarint(l.data, i)
		tf, k, _ := uvarint(l.data, j)
		id += gap
		fn(id, tf)
		i = k
	}
}

// postings calls fn for every live posting of term t: notes taken out are
// skipped.
func (ix *Index) postingsOf(t uint32, fn func(id, tf uint32)) {
	if ix.dead == 0 {
		ix.postings[t].each(fn)
		return
	}
	ix.postings[t].each(func(id, tf uint32) {
		if ix.docs[id] != nil {
			fn(id, tf)
		}
	})
}

// df is how many live notes have term t.
func (ix *Index) df(t uint32) int {
	l := &ix.postings[t]
	if ix.dead == 0 {
		return int(l.n)
	}
	n := 0
	l.each(func(id, _ uint32) {
		if ix.docs[id] != nil {
			n++
		}
	})
	return n
}

// compactDue says whether enough notes are dead to compact.
func (ix *Index) compactDue() bool {
	return ix.dead > max(64, ix.count/32)
}

// compact drops the postings of notes taken out and renumbers the notes
// densely, in their order (so every list stays sorted): one pass over the
// whole index, once the dead are a few percent of it. Sealed positions
// are written to a new file as they are renumbered, never all in memory.
func (ix *Index) compact() {
	renum := make([]uint32, len(ix.docs))
	docs := make([]*doc, 0, ix.count)
	for id, d := range ix.docs {
		if d != nil {
			renum[id] = uint32(len(docs))
			docs = append(docs, d)
		}
	}
	if !ix.compactSealed(renum) {
		for t := range ix.postings {
			ix.postings[t] = ix.renumbered(&ix.postings[t], renum, ix.positionsOf(uint32(t)), nil)
		}
		ix.sealed.close()
		ix.tails = 0
		for _, l := range ix.postings {
			ix.tails += len(l.pos)
		}
	}
	ix.docs = docs
	clear(ix.byPath)
	clear(ix.racy)
	for id, d := range docs {
		ix.byPath[d.path] = uint32(id)
		if d.racy() {
			ix.racy[uint32(id)] = true
		}
	}
	ix.dead = 0
	ix.graph = nil
	ix.resolveGen++
	ix.reindexAnchors()
}

// compactSealed renumbers the lists as compact does, their positions going
// to a new sealed file; false, having changed nothing, when there is no
// sealed file or no new one can be written.
func (ix *Index) compactSealed(renum []uint32) bool {
	sc, ok := ix.scratch()
	if ix.sealed.f == nil || !ok {
		return false
	}
	f, err := sc.ScratchFile()
	if err != nil {
		return false
	}
	lists := make([]plist, len(ix.postings))
	off, err := ix.writeSealed(f, func(t int, old *bufio.Reader, size int64, w *bufio.Writer) error {
		r := io.LimitReader(old, size)
		lists[t] = ix.renumbered(&ix.postings[t], renum, &posSource{r: r, left: size, tail: ix.postings[t].pos}, w)
		// Whatever the source did not read (it stops at a read error)
		// must not be taken for the next term's.
		_, err := io.Copy(io.Discard, r)
		return err
	})
	if err != nil {
		_ = f.Close()
		return false
	}
	ix.postings = lists
	ix.sealed.close()
	ix.sealed = sealed{f: f, off: off}
	ix.tails = 0
	return true
}

// renumbered is l without its dead postings, its ids mapped by renum; the
// positions of those kept are read from ps and written to w, or, when w
// is nil, kept in memory.
func (ix *Index) renumbered(l *plist, renum []uint32, ps *posSource, w io.Writer) plist {
	var out plist
	if l.n == 0 {
		return out
	}
	out.data = make([]byte, 0, len(l.data))
	var b []byte
	l.each(func(id, tf uint32) {
		raw, _ := ps.next()
		if ix.docs[id] != nil {
			out.pushID(renum[id], tf)
			if w == nil {
				out.pos = appendRawPositions(out.pos, raw)
			} else {
				b = appendRawPositions(b[:0], raw)
				_, _ = w.Write(b) // a bufio.Writer: its error comes back at Flush
			}
		}
	})
	out.data, out.pos = slices.Clip(out.data), slices.Clip(out.pos)
	if out.n == 0 {
		out.data, out.pos = nil, nil
	}
	return out
}
