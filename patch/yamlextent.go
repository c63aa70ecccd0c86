package patch

import (
	"bytes"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fmParse is the frontmatter as the YAML parser reads it, for the lines a
// property's value spans when they are not indented: a quoted scalar or a
// flow collection may go on at the start of the next line ("k: \"a\nb\""),
// which the line rules of fmBlock.key alone would take for a new key
// (found by fuzzing). ok is false when the frontmatter is no YAML mapping;
// the line rules alone apply then.
type fmParse struct {
	ok   bool
	body int
	// keyLine holds the 1-based lines (of the frontmatter's body) on which
	// a top-level key starts.
	keyLine map[int]bool
	root    *yaml.Node
}

func (fm fmBlock) parse(content []byte) fmParse {
	var doc yaml.Node
	if yaml.Unmarshal(content[fm.body:fm.close], &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fmParse{}
	}
	p := fmParse{ok: true, body: fm.body, keyLine: map[int]bool{}, root: doc.Content[0]}
	for i := 0; i < len(p.root.Content); i += 2 {
		p.keyLine[p.root.Content[i].Line] = true
	}
	return p
}

// inValue reports whether the line t starting at offset at still belongs
// to the value of the key whose line starts at from: it starts no key the
// parser sees, and it is no comment, or it is inside the value's quotes.
func (p fmParse) inValue(content []byte, from, at int, t string) bool {
	if !p.ok {
		return false
	}
	if at < p.quoteEnd(content, from) {
		return true
	}
	return !p.keyLine[p.lineOf(content, at)] && t[0] != '#'
}

func (p fmParse) lineOf(content []byte, at int) int {
	return bytes.Count(content[p.body:at], []byte("\n")) + 1
}

// quoteEnd is the offset just past the closing quote of the value of the
// key on the line starting at from, when that value is a quoted scalar
// (0 otherwise).
func (p fmParse) quoteEnd(content []byte, from int) int {
	line := p.lineOf(content, from)
	for i := 0; i+1 < len(p.root.Content); i += 2 {
		k, v := p.root.Content[i], p.root.Content[i+1]
		if k.Line != line || v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			continue
		}
		at := p.offset(content, v.Line, v.Column)
		if at < 0 || at >= len(content) || content[at] != '"' && content[at] != '\'' {
			return 0
		}
		q := content[at]
		for j := at + 1; j < len(content); j++ {
			switch {
			case q == '"' && content[j] == '\\':
				j++
			case content[j] == q && q == '\'' && j+1 < len(content) && content[j+1] == '\'':
				j++
			case content[j] == q:
				return j + 1
			}
		}
		return 0
	}
	return 0
}

// offset turns the parser's 1-based line and column (in characters) into
// a byte offset of content, or -1.
func (p fmParse) offset(content []byte, line, col int) int {
	at := p.body
	for l := 1; l < line; l++ {
		n := bytes.IndexByte(content[at:], '\n')
		if n < 0 {
			return -1
		}
		at += n + 1
	}
	for c := 1; c < col; c++ {
		if at >= len(content) || content[at] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(content[at:])
		at += size
	}
	return at
}
