package vaultindex

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A query is clauses that must all hold. Each clause holds when any of its
// alternatives does (words joined by OR); a negated clause must not hold.
type query struct {
	clauses []clause
	// text is the query's words as written, folded and joined by single
	// spaces (filters, exclusions and OR left out): a note whose title or
	// alias is exactly this is what was asked for, and ranks first.
	text string
}

type clause struct {
	neg  bool
	alts []alt
}

// alt is a word, a phrase, or a filter.
type alt struct {
	// words are the folded tokens; a quoted phrase or a CJK run must match
	// them in order, side by side.
	words  []string
	phrase bool
	// unigram is set for a single CJK character, matched on its own.
	unigram bool
	// soft is how many of the last words are the bigrams of a CJK run
	// written without spaces ("同期の競合"), of which a note needs min:
	// the run holds words and particles the note may join differently
	// ("同期 競合", "同期での競合").
	soft, min int
	// quoted is set for text written in quotes, never a stop word.
	quoted bool
	filter *filter
	// terms are what each word matches in the vocabulary, resolved when
	// the query runs.
	terms [][]weighted
}

// filter restricts by something other than the text.
type filter struct {
	kind  string // path, file, tag, prop
	key   string // the property name, for prop
	value string // folded; "" for prop means "has the property"
}

// parseQuery reads the search syntax: words, "exact phrases", -exclusions,
// OR between alternatives, and the filters path:, file:, tag: and
// [property:value]. It fails on nothing a person could mean: stray quotes
// and brackets are taken literally.
func parseQuery(s string) (query, error) {
	var q query
	var pending *clause // the clause an OR extends
	orNext := false
	var text []string // the words asked for, as written
	for _, tok := range splitQuery(s) {
		if tok.text == "OR" && !tok.quoted {
			q.text = "\x00" // alternatives: no one title is the whole query
			if pending == nil {
				return q, fmt.Errorf("OR needs a word on each side")
			}
			orNext = true
			continue
		}
		if _, isFilter := parseFilter(tok.text); !tok.neg && (!isFilter || tok.quoted) {
			text = append(text, tok.text)
		}
		a, ok := makeAlt(tok)
		if !ok {
			continue // punctuation only: nothing to match
		}
		if orNext && pending != nil && !tok.neg {
			pending.alts = append(pending.alts, a)
			orNext = false
			continue
		}
		if orNext {
			return q, fmt.Errorf("OR cannot join an excluded term; write the exclusions apart")
		}
		q.clauses = append(q.clauses, clause{neg: tok.neg, alts: []alt{a}})
		pending = &q.clauses[len(q.clauses)-1]
		if tok.neg {
			pending = nil
		}
	}
	if orNext {
		return q, fmt.Errorf("OR needs a word on each side")
	}
	q.dropStopWords()
	if q.text == "" {
		q.text = normText(strings.Join(text, " "))
	} else {
		q.text = ""
	}
	return q, nil
}

// dropStopWords leaves out the clauses that are a lone stop word ("how",
// "do", "I", "der", "le") when a clause with other words remains: in a
// question asked in a sentence they are in nearly every note, and notes
// that repeat them outranked the one asked about. Quoted words stay.
func (q *query) dropStopWords() {
	stop := func(c clause) bool {
		if c.neg || len(c.alts) != 1 {
			return false
		}
		a := c.alts[0]
		return a.filter == nil && !a.quoted && !a.phrase && a.soft == 0 && len(a.words) == 1 && stopWords[a.words[0]]
	}
	keep := q.clauses[:0:0]
	words := false
	for _, c := range q.clauses {
		if !stop(c) {
			keep = append(keep, c)
			words = words || !c.neg && c.alts[0].filter == nil
		}
	}
	if words {
		q.clauses = keep
	}
}

type qtoken struct {
	text   string
	quoted bool
	neg    bool
}

// splitQuery splits on spaces outside quotes and brackets. Spaces are
// runes: a byte of a multi-byte character (0x85 in Cyrillic х, 0xA0 in
// many scripts) is no space, although unicode.IsSpace says so of the
// rune of that value (it cut бхочю in two, and no search for it found
// the note).
func splitQuery(s string) []qtoken {
	var out []qtoken
	space := func(i int) (bool, int) {
		r, size := utf8.DecodeRuneInString(s[i:])
		return unicode.IsSpace(r), size
	}
	i := 0
	for i < len(s) {
		for i < len(s) {
			sp, size := space(i)
			if !sp {
				break
			}
			i += size
		}
		if i >= len(s) {
			break
		}
		tok := qtoken{}
		if s[i] == '-' && i+1 < len(s) {
			if sp, _ := space(i + 1); !sp {
				tok.neg = true
				i++
			}
		}
		start := i
		switch {
		case s[i] == '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				tok.text, i = s[i+1:], len(s)
			} else {
				tok.text, i = s[i+1:i+1+end], i+2+end
			}
			tok.quoted = true
		case s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				end = len(s) - i - 1
			}
			tok.text, i = s[start:i+end+1], i+end+1
		default:
			// A filter's value may be quoted: path:"My Folder".
			for i < len(s) {
				sp, size := space(i)
				if sp {
					break
				}
				if s[i] == '"' {
					if end := strings.IndexByte(s[i+1:], '"'); end >= 0 {
						i += end + 2
						continue
					}
				}
				i += size
			}
			tok.text = s[start:i]
		}
		out = append(out, tok)
	}
	return out
}

func makeAlt(tok qtoken) (alt, bool) {
	if !tok.quoted {
		if f, ok := parseFilter(tok.text); ok {
			return alt{filter: f}, true
		}
	}
	var words, bigrams, inOrder []string
	single := false
	tokenize(tok.text, false, func(t *token) {
		inOrder = append(inOrder, string(t.term))
		switch {
		case !t.cjk:
			words = append(words, string(t.term))
		case utf8.RuneCount(t.term) == 1:
			single = true
			words = append(words, string(t.term))
		default:
			bigrams = append(bigrams, string(t.term))
		}
	})
	switch {
	case len(words) == 0 && len(bigrams) == 0:
		return alt{}, false
	case len(words) == 1 && len(bigrams) == 0:
		return alt{words: words, unigram: single, quoted: tok.quoted}, true
	case tok.quoted || len(bigrams) == 0:
		// A quoted phrase, or several tokens from one word ("e-mail"):
		// side by side, as written (CJK pairs where they stand: gathered
		// after the other words, "競合 the views" looked for "the views
		// 競合").
		return alt{words: inOrder, phrase: true, quoted: tok.quoted}, true
	}
	// A CJK run written without spaces: its bigrams, less those that hold
	// a particle (の, 的), of which most must be in the note.
	kept := slices.DeleteFunc(slices.Clone(bigrams), func(b string) bool {
		return strings.ContainsAny(b, particles) || hiraganaOnly(b) || cjkStop[b]
	})
	if len(kept) == 0 {
		kept = bigrams
	}
	need := len(kept)
	if need > 2 {
		need = (len(kept)*3 + 4) / 5 // three in five, rounded up
	}
	return alt{words: append(words, kept...), soft: len(kept), min: need}, true
}

// particles are the Japanese and Chinese characters that join words rather
// than being part of them; a bigram across one says nothing a note must
// contain. Nor does a pair of hiragana in a run with other characters
// (した, たら, です: endings and grammar), or one of the pairs that make
// a Chinese question (怎么, 如何).
const particles = "のはがをにでともへや的了是在和与或吗呢"

var cjkStop = map[string]bool{"怎么": true, "么办": true, "如何": true, "什么": true, "为什": true, "怎样": true, "么样": true,
	"可以": true, "应该": true, "是否": true, "能否": true, "哪里": true, "我们": true, "一个": true}

func hiraganaOnly(b string) bool {
	for _, r := range b {
		if !unicode.Is(unicode.Hiragana, r) {
			return false
		}
	}
	return true
}

func parseFilter(s string) (*filter, bool) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && len(s) > 2 {
		key, value, _ := strings.Cut(s[1:len(s)-1], ":")
		key = strings.TrimSpace(key)
		if key == "" {
			return nil, false
		}
		return &filter{kind: "prop", key: key, value: Fold(strings.TrimSpace(unquote(value)))}, true
	}
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return nil, false
	}
	switch kind := strings.ToLower(name); kind {
	case "path", "file", "tag":
		v := unquote(value)
		if kind == "tag" {
			v = strings.TrimPrefix(v, "#")
		}
		if v == "" {
			return nil, false
		}
		return &filter{kind: kind, value: Fold(v)}, true
	}
	return nil, false
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// normText is s as the index reads it: folded words joined by single
// spaces, a CJK run whole. Titles and aliases are compared with the whole
// query so.
func normText(s string) string {
	var b strings.Builder
	prevEnd := -1
	tokenize(s, false, func(t *token) {
		if t.cjk && t.start < prevEnd {
			// The next bigram of a run: its second character.
			_, size := utf8.DecodeLastRune(t.term)
			b.Write(t.term[len(t.term)-size:])
		} else {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.Write(t.term)
		}
		prevEnd = t.end
	})
	return b.String()
}
