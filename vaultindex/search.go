package vaultindex

import (
	"context"
	"math"
	"math/bits"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
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

// set is a set of note ids.
type set []uint64

func newSet(n int) set { return make(set, (n+63)/64) }

func (s set) add(i uint32) { s[i/64] |= 1 << (i % 64) }

func (s set) has(i uint32) bool { return s[i/64]&(1<<(i%64)) != 0 }

func (s set) and(o set) {
	for i := range s {
		s[i] &= o[i]
	}
}

func (s set) or(o set) {
	for i := range s {
		s[i] |= o[i]
	}
}

// each calls fn with every member, in order.
func (s set) each(fn func(id uint32)) {
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			w &^= 1 << b
			fn(uint32(i*64 + b))
		}
	}
}

func (s set) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

func (s set) andNot(o set) {
	for i := range s {
		s[i] &^= o[i]
	}
}

// Search runs one search.
func (ix *Index) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	var res note.SearchResult
	err := ix.view(ctx, func() error {
		var err error
		if req.Mode == note.SearchRegex {
			res, err = ix.searchRegex(ctx, req)
		} else {
			res, err = ix.searchText(ctx, req)
		}
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
	// base is every note the filters and exclusions allow; match narrows it
	// to the notes with every word. When none has them all, the notes with
	// any of them are ranked instead (relaxed), best first: a question
	// asked in a sentence ("how to renew my passport") still finds the
	// note that has its rare words.
	base := ix.live(req.Folder)
	match := slices.Clone(base)
	anyWord := newSet(n)
	wordClauses := 0
	matchedWords := make([]uint8, n) // word clauses each note has
	scores := make([]float64, n)
	fields := make([]uint8, n) // bit per field a word matched in
	for ci := range q.clauses {
		c := &q.clauses[ci]
		cs := newSet(n)
		words := !c.neg
		for ai := range c.alts {
			a := &c.alts[ai]
			if a.filter == nil {
				a.terms = ix.termsFor(*a)
			} else {
				words = false
			}
			as := ix.altSet(*a)
			cs.or(as)
			if !c.neg && a.filter == nil {
				ix.score(*a, as, scores, fields)
			}
		}
		switch {
		case c.neg:
			match.andNot(cs)
			base.andNot(cs)
		case words:
			match.and(cs)
			anyWord.or(cs)
			wordClauses++
			cs.each(func(id uint32) {
				if matchedWords[id] < 255 {
					matchedWords[id]++
				}
			})
		default:
			match.and(cs)
			base.and(cs)
		}
	}
	relaxed := false
	if wordClauses >= 2 && match.empty() {
		base.and(anyWord)
		match, relaxed = base, true
		// A note with more of the words asked for ranks above one that
		// says a few of them often: long notes won questions otherwise.
		base.each(func(id uint32) {
			f := float64(matchedWords[id]) / float64(wordClauses)
			scores[id] *= f * f
		})
	}
	if err := ctx.Err(); err != nil {
		return note.SearchResult{}, err
	}
	var hits []ranked
	match.each(func(id uint32) { hits = append(hits, ranked{id: id, score: scores[id]}) })
	// A note whose title or alias is the whole query is the one asked
	// for: it comes first, whatever its words' scores. One whose title is
	// among the words asked ("how do I use canvas": Canvas) is what the
	// question is about: it counts titleInQuery times.
	asked := q.words()
	for i := range hits {
		// Only a note a word matched in its title or aliases can be
		// either: most are not, and are not read again.
		in := fields[hits[i].id]
		if in&(1<<fTitle|1<<fAlias) == 0 {
			continue
		}
		d := ix.docs[hits[i].id]
		hits[i].exact = q.text != "" && ix.named(d, q.text)
		if in&(1<<fTitle) != 0 && titleAmong(note.Stem(d.path), asked) {
			hits[i].score *= titleInQuery
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].exact != hits[b].exact {
			return hits[a].exact
		}
		if hits[a].score != hits[b].score {
			return hits[a].score > hits[b].score
		}
		return ix.docs[hits[a].id].path < ix.docs[hits[b].id].path
	})
	res := note.SearchResult{Total: len(hits), Hits: []note.Hit{}, Relaxed: relaxed}
	words := asked
	for _, h := range page(hits, req.Offset, req.Limit) {
		d := ix.docs[h.id]
		hit := note.Hit{Path: d.path, Score: math.Round(h.score*1000) / 1000}
		for f := range nFields {
			if fields[h.id]&(1<<f) != 0 {
				hit.Matched = append(hit.Matched, fieldNames[f])
			}
		}
		hit.Snippets = []note.Snippet{}
		if len(words) > 0 {
			if data, err := ix.src.ReadFile(d.path); err == nil {
				hit.Snippets = snippets(data, d.meta.BodyLine, func(line string) [][2]int { return wordMatches(line, words) })
			}
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

func page[T any](all []T, offset, limit int) []T {
	if offset >= len(all) {
		return nil
	}
	return all[offset:min(len(all), offset+limit)]
}

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

// altSet is the set of notes an alternative matches.
func (ix *Index) altSet(a alt) set {
	n := len(ix.docs)
	s := newSet(n)
	if a.filter != nil {
		for id, d := range ix.docs {
			if d != nil && a.filter.match(d) {
				s.add(uint32(id))
			}
		}
		return s
	}
	var first = true
	required := len(a.words) - a.soft
	for i := range a.words[:required] {
		if len(a.terms[i]) == 0 {
			return newSet(n)
		}
		ws := newSet(n)
		for _, wt := range a.terms[i] {
			for _, p := range ix.postings[wt.t] {
				ws.add(p.doc)
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
		counts := make([]uint8, n)
		for i := required; i < len(a.words); i++ {
			for _, wt := range a.terms[i] {
				for _, p := range ix.postings[wt.t] {
					if counts[p.doc] < 255 {
						counts[p.doc]++
					}
				}
			}
		}
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
	if a.phrase {
		ids := ix.phraseIDs(a.words)
		for i, w := range s {
			for w != 0 {
				b := bits.TrailingZeros64(w)
				w &^= 1 << b
				id := uint32(i*64 + b)
				if !ix.hasPhrase(ix.docs[id], ids) {
					s[i] &^= 1 << b
				}
			}
		}
	}
	return s
}

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
// matches. Phrases match their words exactly.
func (ix *Index) termsFor(a alt) [][]weighted {
	out := make([][]weighted, len(a.words))
	for i, w := range a.words {
		if t, ok := ix.termID[w]; ok && len(ix.postings[t]) > 0 {
			out[i] = append(out[i], weighted{t, 1})
		}
		r, _ := utf8.DecodeRuneInString(w)
		if a.phrase || a.unigram || utf8.RuneCountInString(w) < minPrefix || cjk(r) {
			continue
		}
		var exp []weighted
		for t, term := range ix.termText {
			if len(term) > len(w) && strings.HasPrefix(term, w) && len(ix.postings[t]) > 0 {
				exp = append(exp, weighted{uint32(t), prefixWeight})
			}
		}
		if len(exp) > maxExpansions {
			sort.Slice(exp, func(x, y int) bool { return len(ix.postings[exp[x].t]) > len(ix.postings[exp[y].t]) })
			exp = exp[:maxExpansions]
		}
		out[i] = append(out[i], exp...)
	}
	return out
}

func (ix *Index) phraseIDs(words []string) []uint32 {
	ids := make([]uint32, len(words))
	for i, w := range words {
		ids[i] = ix.termID[w]
	}
	return ids
}

// hasPhrase reports whether the note's body has the terms side by side, or
// its title is them. Positions are not kept in the index (they would take
// a sixth of it); a phrase reads its candidate notes again.
func (ix *Index) hasPhrase(d *doc, ids []uint32) bool {
	if data, err := ix.src.ReadFile(d.path); err == nil && ix.textHas(terms(string(data)), ids) {
		return true
	}
	return ix.textHas(terms(note.Stem(d.path)), ids)
}

// textHas reports whether words hold the terms side by side.
func (ix *Index) textHas(words []string, ids []uint32) bool {
	for i := 0; i+len(ids) <= len(words); i++ {
		k := 0
		for k < len(ids) && ix.termText[ids[k]] == words[i+k] {
			k++
		}
		if k == len(ids) {
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
		data, err := ix.src.ReadFile(ix.docs[ids[i]].path)
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
		if data, err := ix.src.ReadFile(d.path); err == nil {
			hit.Snippets = regexSnippets(data, re)
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}
