package vaultindex

import (
	"cmp"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// A phrase ("graph view") is answered from where each word stands in each
// note's body, kept beside the postings: reading and tokenizing again
// every note that has all the words took 0.55–0.90 s at 10,000 notes and
// 4–13.5 s at 100,000, slower than grep. A posting's positions are the
// indexes of its term in the note's body as the phrase check tokenizes it
// (terms: the CJK unigrams take none), as varints (appendPositions). They
// are about as large as the postings themselves, and mostly kept out of
// memory (sealed.go).

// appendPositions appends the positions ps, in increasing order, of one
// posting to b: the byte length of the gaps (so that a posting a phrase
// does not need is stepped over, not decoded), then each position's gap
// from the one before.
func appendPositions(b []byte, ps []uint32) []byte {
	size, prev := uint32(0), uint32(0)
	for _, p := range ps {
		size += uvarintLen(p - prev)
		prev = p
	}
	b = appendUvarint(b, size)
	prev = 0
	for _, p := range ps {
		b = appendUvarint(b, p-prev)
		prev = p
	}
	return b
}

func uvarintLen(v uint32) uint32 {
	n := uint32(1)
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// nextPositions returns the encoded positions of the posting at b[i:]
// (its gaps) and the index after them. The data was checked
// (checkPositions).
func nextPositions(b []byte, i int) (raw []byte, next int) {
	size, j, _ := uvarint(b, i)
	return b[j : j+int(size)], j + int(size)
}

// appendRawPositions appends one posting's gaps as nextPositions returned
// them.
func appendRawPositions(b, raw []byte) []byte {
	return append(appendUvarint(b, uint32(len(raw))), raw...)
}

// checkPositions reports whether pos holds the positions of count
// postings and nothing else. Only the postings' sizes are checked, not
// every gap (that took a third of a restart at 100,000 notes): the
// snapshot's checksum guards the bytes, and a bad gap decodes to a wrong
// position, never out of range (decodePositions).
func checkPositions(pos []byte, count uint32) bool {
	i := 0
	for range count {
		size, j, ok := uvarint(pos, i)
		if !ok || uint64(size) > uint64(len(pos)-j) {
			return false
		}
		i = j + int(size)
	}
	return i == len(pos)
}

// cursor walks a list's postings with their positions.
type cursor struct {
	l   *plist
	ps  *posSource // the list's positions
	i   int        // where the next posting starts in l.data
	id  uint32
	tf  uint32 // the current posting's packed counts
	raw []byte // the current posting's gaps, valid until the next move
	on  bool   // at a posting
}

// next moves to the next posting; false past the last. A posting whose
// positions cannot be read (the sealed file failed) has none.
func (c *cursor) next() bool {
	if c.i >= len(c.l.data) {
		return false
	}
	gap, k, _ := uvarint(c.l.data, c.i)
	c.tf, c.i, _ = uvarint(c.l.data, k)
	c.id += gap
	c.raw, _ = c.ps.next()
	c.on = true
	return true
}

// seek moves to the first posting at or past id; false when there is
// none.
func (c *cursor) seek(id uint32) bool {
	for !c.on || c.id < id {
		if !c.next() {
			return false
		}
	}
	return true
}

// keepPhrase takes out of s the notes whose body does not have words
// side by side, unless their title is the phrase. A note that has the
// phrase in either has each word as written (as a term of its body or
// title); the others, though in s (which has every word in some form:
// altSet), are not looked at.
func (ix *Index) keepPhrase(s set, words []string) {
	found := newSet(len(ix.docs))
	ids := make([]uint32, len(words))
	for i, w := range words {
		t, ok := ix.lookup(w)
		if !ok {
			s.and(found)
			return
		}
		ids[i] = t
	}
	ix.phraseDocs(s, ids, words, found)
	s.and(found)
}

// phraseDocs adds to found the notes of s whose body has the terms ids
// side by side, or whose title is words. The lists are walked together,
// the rarest term's leading; a note every list holds has its positions
// walked together too (hasRun), up to the first place the phrase stands,
// when each term is in its body; its title is read when each is in it.
func (ix *Index) phraseDocs(s set, ids []uint32, words []string, found set) {
	order := make([]int, len(ids)) // places in the phrase, rarest term first
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ix.postings[ids[a]].n, ix.postings[ids[b]].n) })
	cur := make([]cursor, len(ids))
	for i, t := range ids {
		cur[i] = cursor{l: &ix.postings[t], ps: ix.positionsOf(t)}
	}
	lead := &cur[order[0]]
	its := make([]posIter, len(ids))
next:
	for lead.next() {
		id := lead.id
		if !s.has(id) {
			continue
		}
		for _, i := range order[1:] {
			if !cur[i].seek(id) {
				return
			}
			if cur[i].id != id {
				continue next
			}
		}
		inBody, inTitle := true, true
		for i := range cur {
			inBody = inBody && fieldCount(cur[i].tf, fBody) > 0
			inTitle = inTitle && fieldCount(cur[i].tf, fTitle) > 0
		}
		if inBody {
			for i := range its {
				its[i] = posIter{raw: cur[i].raw}
			}
			if hasRun(its) {
				found.add(id)
				continue
			}
		}
		if inTitle && phraseIn(note.Stem(ix.docs[id].path), words) {
			found.add(id)
		}
	}
}

// posIter walks one posting's positions.
type posIter struct {
	raw []byte
	i   int
	p   uint32 // the position read last
	on  bool   // p is one
}

// seek moves to the first position at or past p; false when there is
// none.
func (it *posIter) seek(p uint32) bool {
	for !it.on || it.p < p {
		if it.i >= len(it.raw) {
			return false
		}
		gap, next, ok := uvarint(it.raw, it.i)
		if !ok {
			return false // only in a snapshot made to pass its checksum
		}
		it.i, it.p, it.on = next, it.p+gap, true
	}
	return true
}

// hasRun reports whether there is a start x such that its[i] holds x+i
// for every i: each iterator leaps to where the others say the run must
// start, until they agree or one runs out.
func hasRun(its []posIter) bool {
	x := uint32(0)
	for {
		agreed := true
		for i := range its {
			if !its[i].seek(x + uint32(i)) {
				return false
			}
			if at := its[i].p - uint32(i); at != x {
				x, agreed = at, false // later than x: start again from there
				break
			}
		}
		if agreed {
			return true
		}
	}
}
