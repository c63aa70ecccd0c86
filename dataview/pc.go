package dataview

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A small parser-combinator kit with Parsimmon's semantics (ordered
// choice with backtracking, the furthest failure and what was expected
// there merged across alternatives), so that the grammar below reads as
// Dataview's does and accepts and refuses exactly what it does.

type reply struct {
	ok       bool
	idx      int
	val      any
	furthest int
	expected []string
}

type parser struct {
	fn func(in string, i int) reply
}

func success(i int, v any) reply { return reply{ok: true, idx: i, val: v, furthest: -1} }

func failure(i int, expected string) reply {
	return reply{idx: -1, furthest: i, expected: []string{expected}}
}

// merge is Parsimmon's mergeReplies: keep the furthest failure's
// expectations (joined when two fail at the same place).
func merge(r, last reply) reply {
	if last.furthest < 0 && last.expected == nil {
		return r
	}
	if r.furthest > last.furthest {
		return r
	}
	var exp []string
	if r.furthest == last.furthest {
		exp = unionStrings(r.expected, last.expected)
	} else {
		exp = last.expected
	}
	r.furthest = max(r.furthest, last.furthest)
	r.expected = exp
	return r
}

func unionStrings(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) run(in string, i int) reply { return p.fn(in, i) }

func lazy() *parser { return &parser{} }

func (p *parser) define(q *parser) { p.fn = q.fn }

func str(s string) *parser {
	return &parser{fn: func(in string, i int) reply {
		if strings.HasPrefix(in[i:], s) {
			return success(i+len(s), s)
		}
		return failure(i, "'"+s+"'")
	}}
}

// rx matches a regular expression at the position; group picks the
// submatch for the value (0 for the whole).
func rx(expr string, group int) *parser {
	re := regexp.MustCompile(`^(?:` + expr + `)`)
	desc := "/" + expr + "/"
	return &parser{fn: func(in string, i int) reply {
		m := re.FindStringSubmatchIndex(in[i:])
		if m == nil {
			return failure(i, desc)
		}
		v := ""
		if m[2*group] >= 0 {
			v = in[i+m[2*group] : i+m[2*group+1]]
		}
		return success(i+m[1], v)
	}}
}

func seq(ps ...*parser) *parser {
	return &parser{fn: func(in string, i int) reply {
		acc := make([]any, 0, len(ps))
		var res reply
		res.furthest = -1
		for _, p := range ps {
			res = merge(p.run(in, i), res)
			if !res.ok {
				return res
			}
			acc = append(acc, res.val)
			i = res.idx
		}
		return merge(success(i, acc), res)
	}}
}

func seqMap(f func(v []any) any, ps ...*parser) *parser {
	return seq(ps...).mapTo(func(v any) any { return f(v.([]any)) })
}

func alt(ps ...*parser) *parser {
	return &parser{fn: func(in string, i int) reply {
		var res reply
		res.furthest = -1
		for _, p := range ps {
			res = merge(p.run(in, i), res)
			if res.ok {
				return res
			}
		}
		return res
	}}
}

func (p *parser) or(q *parser) *parser { return alt(p, q) }

func (p *parser) mapTo(f func(any) any) *parser {
	return &parser{fn: func(in string, i int) reply {
		r := p.run(in, i)
		if !r.ok {
			return r
		}
		return merge(success(r.idx, f(r.val)), r)
	}}
}

// mapErr maps a value, or fails with expected when f says no.
func (p *parser) chain(f func(any) *parser) *parser {
	return &parser{fn: func(in string, i int) reply {
		r := p.run(in, i)
		if !r.ok {
			return r
		}
		return merge(f(r.val).run(in, r.idx), r)
	}}
}

func (p *parser) desc(expected string) *parser {
	return &parser{fn: func(in string, i int) reply {
		r := p.run(in, i)
		if !r.ok {
			r.expected = []string{expected}
		}
		return r
	}}
}

func (p *parser) times(lo, hi int) *parser {
	return &parser{fn: func(in string, i int) reply {
		var acc []any
		var prev reply
		prev.furthest = -1
		n := 0
		for ; n < lo; n++ {
			r := p.run(in, i)
			prev = merge(r, prev)
			if !r.ok {
				return prev
			}
			i = r.idx
			acc = append(acc, r.val)
		}
		for ; hi < 0 || n < hi; n++ {
			r := p.run(in, i)
			prev = merge(r, prev)
			if !r.ok || (r.idx == i && hi < 0) {
				break
			}
			i = r.idx
			acc = append(acc, r.val)
		}
		if acc == nil {
			acc = []any{}
		}
		return merge(success(i, acc), prev)
	}}
}

func (p *parser) many() *parser         { return p.times(0, -1) }
func (p *parser) atMost(n int) *parser  { return p.times(0, n) }
func (p *parser) atLeast(n int) *parser { return p.times(n, -1) }

func (p *parser) then(q *parser) *parser {
	return seq(p, q).mapTo(func(v any) any { return v.([]any)[1] })
}

func (p *parser) skip(q *parser) *parser {
	return seq(p, q).mapTo(func(v any) any { return v.([]any)[0] })
}

func (p *parser) wrap(l, r *parser) *parser {
	return seq(l, p, r).mapTo(func(v any) any { return v.([]any)[1] })
}

func (p *parser) trim(q *parser) *parser { return p.wrap(q, q) }

func (p *parser) sepBy1(sep *parser) *parser {
	return seqMap(func(v []any) any {
		return append([]any{v[0]}, v[1].([]any)...)
	}, p, sep.then(p).many())
}

func (p *parser) sepBy(sep *parser) *parser { return p.sepBy1(sep).or(succeed([]any{})) }

func (p *parser) lookahead(q *parser) *parser {
	return p.skip(&parser{fn: func(in string, i int) reply {
		r := q.run(in, i)
		r.idx = i
		r.val = ""
		return r
	}})
}

func succeed(v any) *parser {
	return &parser{fn: func(_ string, i int) reply { return success(i, v) }}
}

func fail(expected string) *parser {
	return &parser{fn: func(_ string, i int) reply { return failure(i, expected) }}
}

var eof = &parser{fn: func(in string, i int) reply {
	if i < len(in) {
		return failure(i, "EOF")
	}
	return success(i, nil)
}}

var anyChar = &parser{fn: func(in string, i int) reply {
	if i >= len(in) {
		return failure(i, "any character")
	}
	_, n := utf8.DecodeRuneInString(in[i:])
	return success(i+n, in[i:i+n])
}}

func noneOf(chars string) *parser {
	return &parser{fn: func(in string, i int) reply {
		if i < len(in) {
			r, n := utf8.DecodeRuneInString(in[i:])
			if !strings.ContainsRune(chars, r) {
				return success(i+n, in[i:i+n])
			}
		}
		return failure(i, "none of '"+chars+"'")
	}}
}

var (
	whitespace    = rx(`\s+`, 0).desc("whitespace")
	optWhitespace = rx(`\s*`, 0).desc("optional whitespace")
)

// ParseError is a query or expression that does not parse: where, and
// what was expected there.
type ParseError struct {
	Line, Column int
	Expected     []string
	Got          string
	Source       string
}

func (e *ParseError) Error() string {
	exp := slices.Clone(e.Expected)
	slices.Sort(exp)
	what := strings.Join(exp, ", ")
	if len(exp) > 1 {
		what = "one of " + what
	}
	got := "the end of the text"
	if e.Got != "" {
		got = fmt.Sprintf("%q", e.Got)
	}
	return fmt.Sprintf("line %d, column %d: expected %s, got %s", e.Line, e.Column, what, got)
}

// parseAll runs p over the whole text (Parsimmon's parse: p then EOF).
func parseAll(p *parser, text string) (any, *ParseError) {
	r := p.skip(eof).run(text, 0)
	if r.ok {
		return r.val, nil
	}
	at := max(0, min(r.furthest, len(text)))
	line := 1 + strings.Count(text[:at], "\n")
	col := 1 + utf8.RuneCountInString(text[strings.LastIndexByte(text[:at], '\n')+1:at])
	got := text[at:]
	if nl := strings.IndexByte(got, '\n'); nl >= 0 {
		got = got[:nl]
	}
	if utf8.RuneCountInString(got) > 20 {
		got = string([]rune(got)[:20]) + "…"
	}
	return nil, &ParseError{Line: line, Column: col, Expected: r.expected, Got: got, Source: text}
}
