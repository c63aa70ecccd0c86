package vaultindex

import (
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
)

// Link text. The words of the lines that link to a note are a field of
// that note (weighted below its title and body): "favourite notes" finds
// Bookmarks when a note says "bookmark your favourite notes: [[Bookmarks]]"
// though Bookmarks itself never says "favourite". A note keeps the words
// of each of its links' lines (doc.anchors, made as it is read and kept in
// a snapshot); anchorsOf finds, for a word, the links whose lines have it,
// and the note each leads to is resolved when a search asks, so a link
// that starts (or stops) resolving as notes come and go counts at once.

// linkWeight is the link-text field's weight (the body's is 1; chosen on
// the Help vault's tuning half of questions among 0.05 to 1, with and
// without sharing a line's words among its links: docs/benchmarks.md),
// and linkBit its bit among the fields a hit matched in (after nFields').
const (
	linkWeight = 0.3
	linkBit    = 1 << nFields
)

// maxAnchorTerms bounds the words kept of one link's line.
const maxAnchorTerms = 24

// anchorRef is one link of a note: the note's id and the link's index in
// its metadata's Links.
type anchorRef struct {
	doc  uint32
	link uint32
}

// lineTerms numbers, with local ids, the words of each link's line of a
// Markdown note (stop words aside, each once, at most maxAnchorTerms).
func (pn *parsedNote) lineTerms(data []byte) {
	m := pn.meta
	if len(m.Links) == 0 {
		return
	}
	lines := metadata.LinesOf(data)
	pn.anchors = make([][]int32, len(m.Links))
	byLine := map[int][]int32{}
	for k, l := range m.Links {
		if ids, ok := byLine[l.Line]; ok {
			pn.anchors[k] = ids
			continue
		}
		var ids []int32
		line := data[lines.Start(l.Line):lines.Start(l.Line+1)]
		// The links' own paths are left out: a note's name is its title's
		// field already, and [[Projects/Plan]] would count "plan" again
		// for Plan. An alias ([[Plan|the roadmap]]) is link text.
		var paths [][2]int
		for _, x := range links.Scan(line) {
			end := x.End
			if x.SubEnd > end {
				end = x.SubEnd
			}
			paths = append(paths, [2]int{x.Start, end})
		}
		tokenize(string(line), false, func(t *token) {
			if len(ids) == maxAnchorTerms || stopWords[string(t.term)] {
				return
			}
			for _, p := range paths {
				if t.start >= p[0] && t.start < p[1] {
					return
				}
			}
			id, added := pn.local.id(t.term)
			if added {
				pn.counts = append(pn.counts, [nFields]uint8{})
			}
			for _, x := range ids {
				if x == int32(id) {
					return
				}
			}
			ids = append(ids, int32(id))
		})
		byLine[l.Line] = ids
		pn.anchors[k] = ids
	}
}

// indexAnchors adds note id's links to anchorsOf: one reference per line
// and term, to the line's first link (linkTargets takes the line's
// others along), so a line of many links costs no more than one.
func (ix *Index) indexAnchors(id uint32) {
	d := ix.docs[id]
	for k, terms := range d.anchors {
		if k > 0 && d.meta.Links[k-1].Line == d.meta.Links[k].Line {
			continue
		}
		for _, t := range terms {
			ix.anchorsOf[t] = append(ix.anchorsOf[t], anchorRef{doc: id, link: uint32(k)})
		}
	}
}

// reindexAnchors makes anchorsOf again from the notes (after their ids
// changed: a compaction, a snapshot loaded).
func (ix *Index) reindexAnchors() {
	ix.anchorsOf = map[uint32][]anchorRef{}
	for id, d := range ix.docs {
		if d != nil {
			ix.indexAnchors(uint32(id))
		}
	}
}

// linkTargets calls fn with each note that links whose lines have term t
// lead to (itself aside), and how many such links lead there.
func (ix *Index) linkTargets(t uint32, fn func(id uint32, n float64)) {
	refs := ix.anchorsOf[t]
	if len(refs) == 0 || ix.linkIx == nil {
		return
	}
	counts := map[uint32]float64{}
	for _, r := range refs {
		src := ix.docs[r.doc]
		if src == nil || int(r.link) >= len(src.meta.Links) {
			continue // taken out since: skipped until a compaction
		}
		targets := ix.targetsOf(src)
		line := src.meta.Links[r.link].Line
		for k := int(r.link); k < len(targets) && src.meta.Links[k].Line == line; k++ {
			if id := targets[k]; id >= 0 {
				counts[uint32(id)]++
			}
		}
	}
	for id, n := range counts {
		fn(id, n)
	}
}

// targetsOf is the notes d's links lead to, resolved once per generation:
// a search asks of the same links for every word and every call.
func (ix *Index) targetsOf(d *doc) []int32 {
	if d.targets != nil && d.targetsAt == ix.resolveGen {
		return d.targets
	}
	if len(d.targets) != len(d.meta.Links) {
		d.targets = make([]int32, len(d.meta.Links))
	}
	for k, l := range d.meta.Links {
		d.targets[k] = -1
		if target := ix.linkIx.Resolve(l.Target, d.path); target != "" && target != d.path {
			if id, ok := ix.byPath[target]; ok {
				d.targets[k] = int32(id)
			}
		}
	}
	d.targetsAt = ix.resolveGen
	return d.targets
}
