package vaultindex

import (
	"fmt"
	"strings"
	"unicode"
)

// A query is clauses that must all hold. Each clause holds when any of its
// alternatives does (words joined by OR); a negated clause must not hold.
type query struct {
	clauses []clause
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
	filter  *filter
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
	for _, tok := range splitQuery(s) {
		if tok.text == "OR" && !tok.quoted {
			if pending == nil {
				return q, fmt.Errorf("OR needs a word on each side")
			}
			orNext = true
			continue
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
	return q, nil
}

type qtoken struct {
	text   string
	quoted bool
	neg    bool
}

// splitQuery splits on spaces outside quotes and brackets.
func splitQuery(s string) []qtoken {
	var out []qtoken
	i := 0
	for i < len(s) {
		for i < len(s) && unicode.IsSpace(rune(s[i])) {
			i++
		}
		if i >= len(s) {
			break
		}
		tok := qtoken{}
		if s[i] == '-' && i+1 < len(s) && !unicode.IsSpace(rune(s[i+1])) {
			tok.neg = true
			i++
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
			for i < len(s) && !unicode.IsSpace(rune(s[i])) {
				if s[i] == '"' {
					if end := strings.IndexByte(s[i+1:], '"'); end >= 0 {
						i += end + 2
						continue
					}
				}
				i++
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
	var words []string
	var cjkWords int
	tokenize(tok.text, false, func(t *token) {
		words = append(words, string(t.term))
		if t.cjk {
			cjkWords++
		}
	})
	switch {
	case len(words) == 0:
		return alt{}, false
	case len(words) == 1 && cjkWords == 1 && len([]rune(words[0])) == 1:
		return alt{words: words, unigram: true}, true
	case len(words) == 1:
		return alt{words: words}, true
	}
	// Several tokens from one unquoted word ("e-mail", "庭園計画") are a
	// phrase too: that is how they were written.
	return alt{words: words, phrase: true}, true
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
