package vaultindex

import (
	"math"

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
// words asked.
const titleInQuery = 3

// titleAmong reports whether every word of title but its stop words is
// among the words asked, and it has one.
func titleAmong(title string, asked map[string]bool) bool {
	some, all := false, true
	tokenize(title, false, func(t *token) {
		switch {
		case asked[string(t.term)]:
			some = true
		case !stopWords[string(t.term)]:
			all = false
		}
	})
	return some && all
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
	for i := range a.words {
		for _, wt := range a.terms[i] {
			ix.scoreTerm(wt, bonus, nDocs, &avg, matched, scores, fields)
		}
	}
}

// scoreTerm adds one vocabulary term's BM25F score, times its weight, to
// the matched notes that have it.
func (ix *Index) scoreTerm(wt weighted, bonus, nDocs float64, avg *[nFields]float64, matched set, scores []float64, fields []uint8) {
	ps := ix.postings[wt.t]
	df := float64(len(ps))
	idf := wt.w * math.Log(1+(nDocs-df+0.5)/(df+0.5))
	for _, p := range ps {
		if !matched.has(p.doc) {
			continue
		}
		d := ix.docs[p.doc]
		tf := 0.0
		for f := range nFields {
			n := fieldCount(p.tf, f)
			if n == 0 {
				continue
			}
			fields[p.doc] |= 1 << f
			norm := 1 - bField[f] + bField[f]*float64(d.lens[f])/avg[f]
			tf += weights[f] * float64(n) / norm
		}
		scores[p.doc] += bonus * idf * tf * (k1 + 1) / (k1 + tf)
	}
}
