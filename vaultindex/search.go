package vaultindex

import (
	"context"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func (ix *Index) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	var res note.SearchResult
	err := ix.run(ctx, ix.patience, func(part *note.Partial) error {
		var err error
		if req.Mode == note.SearchRegex {
			res, err = ix.searchRegex(ctx, req)
		} else {
			res, err = ix.searchText(ctx, req)
		}
		res.Partial = part
		return err
	})
	return res, err
}

type ranked struct {
	id    uint32
	score float64
	exact bool // its title or an alias is the whole query
}

func (ix *Index) searchText(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	q, err := parseQuery(req.Query)
	if err != nil {
		return note.SearchResult{}, errors.InvalidFields(errors.Field{Field: "query", Message: err.Error()})
	}
	if len(q.clauses) == 0 {
		return note.SearchResult{}, errors.InvalidFields(errors.Field{Field: "query",
			Message: `has nothing to search for: give words, "a phrase", or a filter such as tag:project, path:Projects or [status:done]`})
	}
	n := len(ix.docs)
	// base is every note the filters and exclusions allow. Words are
	// ORed: a note with any of them is ranked, by the sum of their BM25F
	// scores, so that a question asked in a sentence ("how to renew my
	// passport") finds the note with its rare words though no note has
	// every word. Requiring every word first, then relaxing, and scaling
	// a note's score by the share of words it has, ranked long notes
	// that mention everything above the short one a question is about
	// (Obsidian's Help vault: held-out questions' MRR@10 0.46, now 0.60;
	// docs/benchmarks.md). all tracks the notes with every word, which
	// says whether the answer is relaxed.
	base := ix.live(req.Folder)
	all := slices.Clone(base)
	anyWord := newSet(n)
	// clauses are the word clauses, kept to count how many of them each
	// note has: a CJK run counts the share of its pairs.
	type clauseHits struct {
		all  set
		part []uint8 // a CJK run's pairs per note, out of soft
		soft int
	}
	var clauses []clauseHits
	scores := make([]float64, n)
	fields := make([]uint8, n) // bit per field a word matched in
	for ci := range q.clauses {
		c := &q.clauses[ci]
		cs := newSet(n)
		words := !c.neg
		var ch clauseHits
		for ai := range c.alts {
			a := &c.alts[ai]
			if a.filter == nil {
				a.terms = ix.termsFor(*a)
			} else {
				words = false
			}
			as, part := ix.altSet(*a)
			cs.or(as)
			if c.neg || a.filter != nil {
				continue
			}
			if a.soft == 0 || len(c.alts) > 1 {
				ix.score(*a, as, scores, fields)
				continue
			}
			// A CJK run: a note with some of its pairs has some of the
			// words asked, and is scored for those.
			some := newSet(n)
			for id, k := range part {
				if k > 0 {
					some.add(uint32(id))
				}
			}
			ix.score(*a, some, scores, fields)
			anyWord.or(some)
			ch = clauseHits{part: part, soft: a.soft}
		}
		switch {
		case c.neg:
			base.andNot(cs)
			all.andNot(cs)
		case words:
			all.and(cs)
			anyWord.or(cs)
			if ch.part == nil {
				ch.all = cs
			}
			clauses = append(clauses, ch)
		default:
			base.and(cs)
			all.and(cs)
		}
	}
	match := base
	if len(clauses) > 0 {
		match.and(anyWord)
	}
	// A note with more of the words asked ranks higher, by the square root
	// of its share of them (squared and linear shares did worse on the
	// Help vault's tuning half of questions), and a CJK run's pairs count
	// by their share squared: they are one word's, or one phrase's, pieces.
	match.each(func(id uint32) {
		if len(clauses) == 0 {
			return // filters alone: no words to count
		}
		has, pieces := 0.0, 1.0
		for _, c := range clauses {
			switch {
			case c.part != nil:
				f := min(1, float64(c.part[id])/float64(c.soft))
				has += f
				pieces *= f * f
			case c.all.has(id):
				has++
			}
		}
		scores[id] *= math.Sqrt(has/float64(len(clauses))) * pieces
	})
	relaxed := all.empty() && !match.empty()
	if err := ctx.Err(); err != nil {
		return note.SearchResult{}, err
	}
	var hits []ranked
	match.each(func(id uint32) { hits = append(hits, ranked{id: id, score: scores[id]}) })
	// A note whose title or alias is the whole query is the one asked
	// for: it comes first, whatever its words' scores. One whose title is
	// among the words asked ("how do I use canvas": Canvas) is what the
	// question is about: it counts up to titleInQuery times, by the share
	// of its title's words asked ("how many words": Word count, half).
	asked := q.words()
	stems := stemsOf(asked)
	for i := range hits {
		// Only a note a word matched in its title or aliases can be
		// either: most are not, and are not read again.
		in := fields[hits[i].id]
		if in&(1<<fTitle|1<<fAlias) == 0 {
			continue
		}
		d := ix.docs[hits[i].id]
		hits[i].exact = q.text != "" && ix.named(d, q.text)
		if in&(1<<fTitle) != 0 {
			hits[i].score *= 1 + (titleInQuery-1)*titleCover(note.Stem(d.path), asked, stems)
		}
	}
	before := func(a, b ranked) bool {
		if a.exact != b.exact {
			return a.exact
		}
		if a.score != b.score {
			return a.score > b.score
		}
		return ix.docs[a.id].path < ix.docs[b.id].path
	}
	res := note.SearchResult{Total: len(hits), Hits: []note.Hit{}, Relaxed: relaxed}
	// Only the pages up to the one asked for are put in order: at 100,000
	// notes a common word matches most of them.
	hits = best(hits, req.Offset+max(req.Limit, 0), before)
	// Snippets mark the words asked and those sharing a stem with one;
	// not the longer words one begins ("plan": "plant"), which count
	// for less and would pick lines about something else.
	words := maps.Clone(asked)
	for _, c := range q.clauses {
		for _, a := range c.alts {
			if c.neg || a.filter != nil {
				continue
			}
			for _, ts := range a.terms {
				for _, wt := range ts {
					if wt.w >= stemWeight {
						words[ix.termText[wt.t]] = true
					}
				}
			}
		}
	}
	for i, h := range page(hits, req.Offset, req.Limit) {
		d := ix.docs[h.id]
		most := maxSnippets
		if req.Offset+i >= fullSnippets {
			most = 1
		}
		hit := note.Hit{Path: d.path, Score: math.Round(h.score*1000) / 1000}
		hit.Matched = matchedIn(fields[h.id])
		hit.Snippets = []note.Snippet{}
		if len(words) > 0 {
			if data, lineOf, err := ix.text(d.path); err == nil {
				hit.Snippets = onCanvasLines(snippets(data, d.meta.BodyLine, most, func(line string) [][2]int { return wordMatches(line, words) }), lineOf)
			}
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

// matchedIn names the fields whose bits are set: the note's own, then
// "link" for the text of the lines linking to it.
func matchedIn(bits uint8) []string {
	var out []string
	for f := range nFields {
		if bits&(1<<f) != 0 {
			out = append(out, fieldNames[f])
		}
	}
	if bits&linkBit != 0 {
		out = append(out, "link")
	}
	return out
}

func page[T any](all []T, offset, limit int) []T {
	if offset >= len(all) {
		return nil
	}
	return all[offset:min(len(all), offset+limit)]
}

// live is the set of notes, within folder when it is set.
func (ix *Index) live(folder string) set {
	s := newSet(len(ix.docs))
	prefix := strings.Trim(folder, "/") + "/"
	for id, d := range ix.docs {
		if d != nil && (prefix == "/" || strings.HasPrefix(d.path, prefix)) {
			s.add(uint32(id))
		}
	}
	return s
}

// altSet is the set of notes an alternative matches, and for a CJK run
// (a.soft) how many of its pairs each note has.
func (ix *Index) altSet(a alt) (set, []uint8) {
	n := len(ix.docs)
	s := newSet(n)
	if a.filter != nil {
		for id, d := range ix.docs {
			if d != nil && a.filter.match(d) {
				s.add(uint32(id))
			}
		}
		return s, nil
	}
	var counts []uint8
	if a.soft > 0 {
		counts = ix.softCounts(a)
	}
	var first = true
	required := len(a.words) - a.soft
	for i := range a.words[:required] {
		if len(a.terms[i]) == 0 {
			return newSet(n), counts
		}
		ws := newSet(n)
		for _, wt := range a.terms[i] {
			ix.postingsOf(wt.t, func(id, _ uint32) { ws.add(id) })
			if !a.phrase && a.soft == 0 {
				// A note is found by the words of the lines linking to it.
				ix.linkTargets(wt.t, func(id uint32, _ float64) { ws.add(id) })
			}
		}
		if first {
			s, first = ws, false
		} else {
			s.and(ws)
		}
	}
	if a.soft > 0 {
		// The bigrams of a run written without spaces: min of them.
		ss := newSet(n)
		for id, c := range counts {
			if int(c) >= a.min {
				ss.add(uint32(id))
			}
		}
		if first {
			s = ss
		} else {
			s.and(ss)
		}
	}
	if a.phrase && !s.empty() {
		ix.keepPhrase(s, a.words)
	}
	return s, counts
}

// softCounts is how many of the alternative's soft words (a CJK run's
// pairs) each note has.
func (ix *Index) softCounts(a alt) []uint8 {
	counts := make([]uint8, len(ix.docs))
	for i := len(a.words) - a.soft; i < len(a.words); i++ {
		for _, wt := range a.terms[i] {
			ix.postingsOf(wt.t, func(id, _ uint32) {
				if counts[id] < 255 {
					counts[id]++
				}
			})
		}
	}
	return counts
}

// phraseIn reports whether text's tokens hold words side by side. For
// each token it keeps which of the phrase's places it could fill (a bit
// per word); the phrase is there when the last len(words) tokens fill
// every place in turn, so a word repeated within the phrase is no
// trouble. Phrases are up to 64 words.
func phraseIn(text string, words []string) bool {
	k := len(words)
	if k == 0 || k > 64 {
		return false
	}
	// run[j] is set when the tokens ending here fill places 0..j.
	var run uint64
	found := false
	tokenize(text, false, func(t *token) {
		if found {
			return
		}
		var fits uint64
		for j, w := range words {
			if string(t.term) == w {
				fits |= 1 << j
			}
		}
		// Place j is filled now when the token fits it and places
		// 0..j-1 were filled ending at the token before.
		run = (run<<1 | 1) & fits
		if run&(1<<(k-1)) != 0 {
			found = true
		}
	})
	return found
}

// match reports whether the note passes the filter.
func (f *filter) match(d *doc) bool {
	switch f.kind {
	case "path":
		return strings.Contains(Fold(d.path), f.value)
	case "file":
		return strings.Contains(Fold(path.Base(d.path)), f.value)
	case "tag":
		for _, t := range d.meta.Tags {
			ft := Fold(t.Name)
			if ft == f.value || strings.HasPrefix(ft, f.value+"/") {
				return true
			}
		}
		return false
	case "prop":
		for _, p := range d.meta.Properties {
			if !strings.EqualFold(p.Key, f.key) {
				continue
			}
			if f.value == "" {
				return true
			}
			return valueContains(p.Value, f.value)
		}
	}
	return false
}

func valueContains(v any, want string) bool {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			if valueContains(x, want) {
				return true
			}
		}
		return false
	case map[string]any:
		return false
	case nil:
		return want == "null"
	}
	return strings.Contains(Fold(toString(v)), want)
}

func (ix *Index) searchRegex(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	re, err := regexp.Compile("(?im)" + req.Query)
	if err != nil {
		return note.SearchResult{}, errors.InvalidFields(errors.Field{Field: "query",
			Message: "is not a valid regular expression (RE2 syntax, case-insensitive): " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")})
	}
	match := ix.live(req.Folder)
	type found struct {
		id    uint32
		count int
	}
	var all []found
	var ids []uint32
	for id, d := range ix.docs {
		if d != nil && match.has(uint32(id)) {
			ids = append(ids, uint32(id))
		}
	}
	counts := make([]int, len(ids))
	parallel(len(ids), func(i int) {
		if ctx.Err() != nil {
			return
		}
		data, _, err := ix.text(ix.docs[ids[i]].path)
		if err == nil {
			counts[i] = len(re.FindAllIndex(data, 1000))
		}
	})
	if err := ctx.Err(); err != nil {
		return note.SearchResult{}, err
	}
	for i, c := range counts {
		if c > 0 {
			all = append(all, found{ids[i], c})
		}
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].count != all[b].count {
			return all[a].count > all[b].count
		}
		return ix.docs[all[a].id].path < ix.docs[all[b].id].path
	})
	res := note.SearchResult{Total: len(all), Hits: []note.Hit{}}
	for _, f := range page(all, req.Offset, req.Limit) {
		d := ix.docs[f.id]
		hit := note.Hit{Path: d.path, Score: float64(f.count), Snippets: []note.Snippet{}}
		if data, lineOf, err := ix.text(d.path); err == nil {
			hit.Snippets = onCanvasLines(regexSnippets(data, re), lineOf)
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}
