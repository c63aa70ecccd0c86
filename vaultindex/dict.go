package vaultindex

import (
	"slices"
	"strings"
)

// The dictionary (term text → id) is a map while notes are read in
// numbers, and otherwise the term ids in the order of their text
// (Index.sorted), searched by halves. A snapshot keeps that order, so a
// restart builds no map: inserting every term into one was two fifths of
// decoding the Help vault's snapshot (6,289 notes), more than gob's own
// work. The map is made when a refresh has many notes to read (their
// every word is looked up).

// dictMapAt is how many notes a refresh reads before it makes the map.
// It must not exceed readBatch: a refresh of several batches parses one
// while it merges the one before, which adds terms (termText) that a
// search by halves would read meanwhile; the map is not changed until the
// stage ends.
const dictMapAt = readBatch

// lookup is term s's id, if it has one outside the current stage's fresh
// terms.
func (ix *Index) lookup(s string) (uint32, bool) {
	if ix.termID != nil {
		t, ok := ix.termID[s]
		return t, ok
	}
	i, ok := slices.BinarySearchFunc(ix.sorted, s, func(t uint32, s string) int { return strings.Compare(ix.termText[t], s) })
	if !ok {
		return 0, false
	}
	return ix.sorted[i], true
}

// needMap makes the map before n notes are read, when it is worth it.
func (ix *Index) needMap(n int) {
	if ix.termID != nil || n < dictMapAt {
		return
	}
	ix.termID = make(map[string]uint32, len(ix.termText))
	for t, s := range ix.termText {
		ix.termID[s] = uint32(t)
	}
	if n > yieldAbove {
		// A large read adds many terms: sorting them once, when saved,
		// costs less than merging each stage's into the order.
		ix.sorted = nil
	}
}

// endStage puts the terms added by a refresh stage (ix.fresh) into the
// dictionary: the map, and the order when it is kept.
func (ix *Index) endStage() {
	if len(ix.fresh) == 0 {
		return
	}
	if ix.termID != nil {
		for s, t := range ix.fresh {
			ix.termID[s] = t
		}
	}
	if ix.sorted != nil || ix.termID == nil {
		added := make([]uint32, 0, len(ix.fresh))
		for _, t := range ix.fresh {
			added = append(added, t)
		}
		ix.sortIDs(added)
		ix.sorted = ix.mergeIDs(ix.sorted, added)
	}
	clear(ix.fresh)
}

// order is every term id in the order of their text, made when not kept.
func (ix *Index) order() []uint32 {
	if ix.sorted == nil && len(ix.termText) > 0 {
		ix.sorted = make([]uint32, len(ix.termText))
		for t := range ix.sorted {
			ix.sorted[t] = uint32(t)
		}
		ix.sortIDs(ix.sorted)
	}
	return ix.sorted
}

func (ix *Index) sortIDs(ids []uint32) {
	slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(ix.termText[a], ix.termText[b]) })
}

// mergeIDs merges two lists of ids, each in the order of their text.
func (ix *Index) mergeIDs(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if ix.termText[a[0]] < ix.termText[b[0]] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// snapOrder is the dictionary's order in a snapshot: its term numbers (a
// snapshot leaves out terms without postings, and numbers the others in
// turn) in the order of their text.
type snapOrder struct{ Sorted []uint32 }

// snapOrder is the order of the terms encode writes.
func (ix *Index) snapOrder() snapOrder {
	num := make([]uint32, len(ix.termText))
	n := uint32(0)
	for t, l := range ix.postings {
		if l.n > 0 {
			num[t] = n
			n++
		}
	}
	out := make([]uint32, 0, n)
	for _, t := range ix.order() {
		if ix.postings[t].n > 0 {
			out = append(out, num[t])
		}
	}
	return snapOrder{Sorted: out}
}

// checkOrder reports whether sorted is every term of l once, in the order
// of their text: each strictly after the one before, which also says no
// term is there twice.
func (l *loaded) checkOrder(sorted []uint32) bool {
	if len(sorted) != len(l.termText) {
		return false
	}
	for i, t := range sorted {
		if int(t) >= len(l.termText) || i > 0 && l.termText[sorted[i-1]] >= l.termText[t] {
			return false
		}
	}
	return true
}
