package vaultindex

import (
	"container/heap"
	"math"
	"sort"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// BM25F parameters. Weights make a match in a note's title, aliases, tags
// or headings count more than one in its body; b is how much a longer
// field dilutes a match.
var (
	k1      = 1.2
	weights = [nFields]float64{fTitle: 5, fAlias: 4, fHeading: 2.5, fTag: 3, fPath: 1.5, fBody: 1}
	bField  = [nFields]float64{fTitle: 0.3, fAlias: 0.3, fHeading: 0.5, fTag: 0.3, fPath: 0.3, fBody: 0.75}
)

// phraseBonus multiplies the score of a phrase that matched as a whole.
const phraseBonus = 1.5

// titleInQuery is how much more a note counts when its title is among the
// words asked; a title partly among them counts its share of that.
const titleInQuery = 3

// titleCover is the share of title's words, stop words aside, that are
// among the words asked (as written or by stem). A title in Chinese or
// Japanese counts whole or not at all: its pairs of characters do not say
// which of its words a question has ("ファイルの埋め込み" has the pairs of
// ファイル, "file", which most questions about files ask).
func titleCover(title string, asked, stems map[string]bool) float64 {
	has, n, cjkMissed := 0, 0, false
	tokenize(title, false, func(t *token) {
		term := string(t.term)
		s, ok := stem(term)
		switch {
		case asked[term] || ok && stems[s]:
			has++
			n++
		case !stopWords[term]:
			n++
			cjkMissed = cjkMissed || t.cjk
		}
	})
	if n == 0 || cjkMissed {
		return 0
	}
	return float64(has) / float64(n)
}

// stemsOf is the stems of words, those that have one.
func stemsOf(words map[string]bool) map[string]bool {
	out := map[string]bool{}
	for w := range words {
		if s, ok := stem(w); ok {
			out[s] = true
		}
	}
	return out
}

// named reports whether the note's title or one of its aliases reads as
// text (normText).
func (ix *Index) named(d *doc, text string) bool {
	if normText(note.Stem(d.path)) == text {
		return true
	}
	for _, a := range d.meta.Aliases {
		if normText(a) == text {
			return true
		}
	}
	return false
}

// score adds BM25F scores of an alternative's words to the notes it
// matched.
func (ix *Index) score(a alt, matched set, scores []float64, fields []uint8) {
	var avg [nFields]float64
	for f := range nFields {
		avg[f] = max(1, float64(ix.totals[f])/float64(max(1, ix.count)))
	}
	bonus := 1.0
	if a.phrase {
		bonus = phraseBonus
	}
	nDocs := float64(ix.count)
	viaLinks := !a.phrase && a.soft == 0
	for i := range a.words {
		for _, wt := range a.terms[i] {
			ix.scoreTerm(wt, bonus, nDocs, &avg, matched, scores, fields)
			if viaLinks {
				ix.scoreLinkText(wt, nDocs, matched, scores, fields)
			}
		}
	}
}

// scoreLinkText adds a term's score in the link-text field (anchors.go)
// to the notes that do not have it themselves: BM25 over the number of
// links to a note whose lines have the term, at linkWeight, with the
// term's own rarity among the notes.
func (ix *Index) scoreLinkText(wt weighted, nDocs float64, matched set, scores []float64, fields []uint8) {
	df := float64(ix.df(wt.t))
	idf := wt.w * math.Log(1+(nDocs-df+0.5)/(df+0.5))
	if len(ix.anchorsOf[wt.t]) == 0 {
		return
	}
	// Only a note that does not have the word itself: one that has it is
	// scored for it in its own fields, and its links' words only moved
	// it about (on the Help vault's tuning half: MRR@10 0.60 counting
	// both, 0.65 so; docs/benchmarks.md).
	own := newSet(len(ix.docs))
	ix.postingsOf(wt.t, func(id, _ uint32) { own.add(id) })
	ix.linkTargets(wt.t, func(id uint32, n float64) {
		if !matched.has(id) || own.has(id) {
			return
		}
		fields[id] |= linkBit
		tf := linkWeight * n
		scores[id] += idf * tf * (k1 + 1) / (k1 + tf)
	})
}

// scoreTerm adds one vocabulary term's BM25F score, times its weight, to
// the matched notes that have it.
func (ix *Index) scoreTerm(wt weighted, bonus, nDocs float64, avg *[nFields]float64, matched set, scores []float64, fields []uint8) {
	df := float64(ix.df(wt.t))
	idf := wt.w * math.Log(1+(nDocs-df+0.5)/(df+0.5))
	ix.postingsOf(wt.t, func(id, packed uint32) {
		if !matched.has(id) {
			return
		}
		d := ix.docs[id]
		tf := 0.0
		for f := range nFields {
			n := fieldCount(packed, f)
			if n == 0 {
				continue
			}
			fields[id] |= 1 << f
			norm := 1 - bField[f] + bField[f]*float64(d.lens[f])/avg[f]
			tf += weights[f] * float64(n) / norm
		}
		scores[id] += bonus * idf * tf * (k1 + 1) / (k1 + tf)
	})
}

// best returns the first k of hits in the order before gives, sorted (all
// of them when k is not less than their number). It keeps a heap of the k
// best seen, the worst on top: O(n log k) instead of sorting every hit.
func best(hits []ranked, k int, before func(a, b ranked) bool) []ranked {
	if k <= 0 || k >= len(hits) {
		sort.Slice(hits, func(a, b int) bool { return before(hits[a], hits[b]) })
		return hits
	}
	h := &worstFirst{before: before, items: make([]ranked, 0, k)}
	for _, x := range hits {
		if len(h.items) < k {
			heap.Push(h, x)
		} else if before(x, h.items[0]) {
			h.items[0] = x
			heap.Fix(h, 0)
		}
	}
	out := h.items
	sort.Slice(out, func(a, b int) bool { return before(out[a], out[b]) })
	return out
}

// worstFirst is a heap of hits whose top is the one ranked last.
type worstFirst struct {
	before func(a, b ranked) bool
	items  []ranked
}

func (h *worstFirst) Len() int           { return len(h.items) }
func (h *worstFirst) Less(i, j int) bool { return h.before(h.items[j], h.items[i]) }
func (h *worstFirst) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *worstFirst) Push(x any)         { h.items = append(h.items, x.(ranked)) }
func (h *worstFirst) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
