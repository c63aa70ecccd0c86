package vaultindex

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// weighted is a vocabulary term a query word matches, and how much it
// counts.
type weighted struct {
	t uint32
	w float64
}

// A word of at least minPrefix letters also matches the longer words it
// begins ("compost" finds "composting"), each counting prefixWeight of an
// exact match; the maxExpansions most common of them.
const (
	prefixWeight  = 0.5
	minPrefix     = 4
	maxExpansions = 64
)

// termsFor resolves each word of an alternative to the vocabulary terms it
// matches: itself, the words sharing its stem (stem.go), and the longer
// words it begins. Phrases match their words exactly.
func (ix *Index) termsFor(a alt) [][]weighted {
	out := make([][]weighted, len(a.words))
	for i, w := range a.words {
		if t, ok := ix.lookup(w); ok && ix.postings[t].n > 0 {
			out[i] = append(out[i], weighted{t, 1})
		}
		r, _ := utf8.DecodeRuneInString(w)
		if a.phrase || a.unigram || cjk(r) {
			continue
		}
		expand := utf8.RuneCountInString(w) >= minPrefix
		s, stems := stem(w)
		if !expand && !stems {
			continue
		}
		scan := w
		if stems {
			scan = commonPrefix(w, stemPrefix(s))
		}
		var same, exp []weighted
		for t, term := range ix.termText {
			if len(term) <= len(scan) || term == w || !strings.HasPrefix(term, scan) || ix.postings[t].n == 0 {
				continue
			}
			switch {
			case stems && stemIs(term, s):
				same = append(same, weighted{uint32(t), stemWeight})
			case expand && strings.HasPrefix(term, w):
				exp = append(exp, weighted{uint32(t), prefixWeight})
			}
		}
		if len(exp) > maxExpansions {
			sort.Slice(exp, func(x, y int) bool { return ix.postings[exp[x].t].n > ix.postings[exp[y].t].n })
			exp = exp[:maxExpansions]
		}
		out[i] = append(append(out[i], same...), exp...)
	}
	return out
}

// commonPrefix is the longest string both a and b begin with, whole runes.
func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return a[:n]
}

// stemIs reports whether term has stem s; the scan has already found
// that term begins as s's words do.
func stemIs(term, s string) bool {
	ts, ok := stem(term)
	return ok && ts == s
}
