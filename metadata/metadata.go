// Package metadata reads the structure of one Obsidian note the way
// Obsidian's metadata cache sees it: frontmatter properties with their
// types, headings and the sections they open, block ids (^id), tags from the
// frontmatter and inline #tags, and internal links, each with its line. What
// sits inside fenced code blocks or inline code spans is text, never
// structure, so a `#tag` or a "# heading" in code counts for nothing.
//
// It does no I/O. The vault index keeps one Note per note; the CLI backend
// parses what the app prints into the same shapes.
package metadata

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Note is one note's structure.
type Note struct {
	// Properties are the frontmatter's top-level keys, in their order.
	Properties []Property
	// FrontmatterError says why a frontmatter block did not parse as YAML;
	// its properties are then empty, as in Obsidian.
	FrontmatterError string
	// BodyLine is the first line after the frontmatter (1 without one).
	BodyLine int
	Headings []Heading
	Blocks   []Block
	// Tags are every tag use: frontmatter first (line 0), then inline.
	Tags []Tag
	// Aliases come from the frontmatter's aliases (or alias) property.
	Aliases []string
	Links   []Link
	// Lines is the number of lines (a final newline does not start one).
	Lines int
}

// Property is one frontmatter key with its value as JSON would carry it:
// string, float64 or int64, bool, nil, []any or map[string]any. Dates keep
// the text they were written with.
type Property struct {
	Key   string `json:"key" jsonschema:"the property name, as written"`
	Type  string `json:"type" jsonschema:"text, number, checkbox, date, datetime, list, object or null"`
	Value any    `json:"value" jsonschema:"the value as typed JSON: string, number, boolean, null, array or object; dates as written (2026-11-23)"`
}

// Heading is an ATX heading ("## Risks") and the section it opens.
type Heading struct {
	Level int    `json:"level" jsonschema:"1 to 6"`
	Text  string `json:"text" jsonschema:"the heading text, without the #s"`
	Line  int    `json:"line" jsonschema:"1-based line of the heading"`
	// EndLine is the section's last line: the line before the next heading
	// of the same or a higher level, or the note's last line.
	EndLine int `json:"end_line" jsonschema:"last line of its section: before the next heading of the same or a higher level"`
}

// Block is a block id: "^id" ending a paragraph, list item or line.
type Block struct {
	ID   string `json:"id" jsonschema:"the block id, without ^; link to it as [[Note#^id]]"`
	Line int    `json:"line" jsonschema:"1-based line that carries it"`
}

// Tag is one use of a tag.
type Tag struct {
	// Name is the tag without '#', as written (tags match case-insensitively).
	Name string
	// Line is the 1-based line of an inline tag, 0 for the frontmatter.
	Line int
}

// Link is one internal link.
type Link struct {
	// Target is the link path as written, without subpath or alias.
	Target   string
	Subpath  string // "#Heading" or "#^block", when given
	Line     int
	Embed    bool
	Markdown bool
}

// Parse reads text's structure.
func Parse(text []byte) *Note {
	n := &Note{}
	// A byte order mark is not text: without it, a first line "# Title"
	// is a heading and "---" opens frontmatter. Every position is a line
	// number, which the mark does not change.
	text = text[len(note.BOM(text)):]
	lines := LinesOf(text)
	n.Lines = lines.Count()
	fmEnd := note.FrontmatterEnd(text)
	n.BodyLine = 1
	if fmEnd > 0 {
		n.BodyLine = lines.Of(fmEnd)
		if fmEnd == len(text) && text[fmEnd-1] != '\n' {
			n.BodyLine = n.Lines + 1
		}
		n.parseFrontmatter(text[:fmEnd])
	}
	for _, span := range links.Prose(text) {
		from, to := max(span[0], fmEnd), span[1]
		if from < to {
			n.scanProse(text, from, to, lines)
		}
	}
	for _, l := range links.Scan(text) {
		target := l.Path
		sub := ""
		if rest := text[l.End:]; len(rest) > 0 && rest[0] == '#' {
			end := bytes.IndexAny(rest, "|])\n")
			if end < 0 {
				end = len(rest)
			}
			sub = string(rest[:end])
		}
		n.Links = append(n.Links, Link{Target: target, Subpath: sub, Line: lines.Of(l.Start), Embed: l.Embed, Markdown: l.Markdown})
	}
	for i := range n.Headings {
		n.Headings[i].EndLine = n.Lines
		for j := i + 1; j < len(n.Headings); j++ {
			if n.Headings[j].Level <= n.Headings[i].Level {
				n.Headings[i].EndLine = n.Headings[j].Line - 1
				break
			}
		}
	}
	return n
}

// scanProse finds headings, block ids and inline tags in text[from:to],
// which holds whole lines outside code blocks and frontmatter.
func (n *Note) scanProse(text []byte, from, to int, lines Lines) {
	for off := from; off < to; {
		end := bytes.IndexByte(text[off:to], '\n')
		next := to
		if end >= 0 {
			next = off + end + 1
		} else {
			end = to - off
		}
		line := bytes.TrimSuffix(text[off:off+end], []byte{'\r'})
		ln := lines.Of(off)
		if h, ok := heading(line); ok {
			h.Line = ln
			n.Headings = append(n.Headings, h)
		}
		if id, ok := blockID(line); ok {
			n.Blocks = append(n.Blocks, Block{ID: id, Line: ln})
		}
		off = next
	}
	n.inlineTags(text, from, to, lines)
}

// heading parses an ATX heading: up to three spaces, one to six '#', then a
// space, a tab or the end of the line.
func heading(line []byte) (Heading, bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	level := 0
	for i+level < len(line) && line[i+level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return Heading{}, false
	}
	rest := line[i+level:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return Heading{}, false
	}
	t := strings.TrimSpace(string(rest))
	// A closing run of '#' preceded by a space is not part of the text.
	if k := strings.TrimRight(t, "#"); k != t && (k == "" || strings.HasSuffix(k, " ") || strings.HasSuffix(k, "\t")) {
		t = strings.TrimSpace(k)
	}
	return Heading{Level: level, Text: t}, true
}

// blockID finds "^id" ending a line, after a space or alone on it.
func blockID(line []byte) (string, bool) {
	i := bytes.LastIndexByte(line, '^')
	if i < 0 {
		return "", false
	}
	line = bytes.TrimRight(line, " \t")
	if i < 0 || i == len(line)-1 || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
		return "", false
	}
	id := line[i+1:]
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return "", false
		}
	}
	return string(id), true
}

// inlineTags finds #tags in text[from:to], skipping inline code spans. A
// tag starts a line or follows white space, and runs over letters, digits,
// '_', '-' and '/'; it needs one character that is not a digit (#123 is
// not a tag, as in Obsidian).
func (n *Note) inlineTags(text []byte, from, to int, lines Lines) {
	scanTags(text, from, to, func(name string, start, _ int) {
		n.Tags = append(n.Tags, Tag{Name: name, Line: lines.Of(start)})
	})
}

// TagSpan is an inline tag's place in a note: text[Start:End] is "#name"
// as written.
type TagSpan struct {
	Name       string
	Start, End int
}

// InlineTags finds the inline tags of text (a note without its byte order
// mark) with their byte ranges: in prose only, never in frontmatter or
// code, by the same rules as Parse.
func InlineTags(text []byte) []TagSpan {
	var out []TagSpan
	fmEnd := note.FrontmatterEnd(text)
	for _, span := range links.Prose(text) {
		if from, to := max(span[0], fmEnd), span[1]; from < to {
			scanTags(text, from, to, func(name string, start, end int) {
				out = append(out, TagSpan{Name: name, Start: start, End: end})
			})
		}
	}
	return out
}

// scanTags calls found for each tag in text[from:to], a span of prose:
// its name and the range of "#name" as written.
func scanTags(text []byte, from, to int, found func(name string, start, end int)) {
	for i := from; i < to; {
		switch c := text[i]; c {
		case '`':
			i = links.CodeSpanEnd(text, i, to)
			continue
		case '\\':
			i += 2
			continue
		case '#':
			if i > from && !isSpaceBefore(text, i) {
				i++
				continue
			}
			j := i + 1
			digitsOnly := true
			for j < to {
				r, size := utf8.DecodeRune(text[j:to])
				if !tagRune(r) {
					break
				}
				if !unicode.IsDigit(r) {
					digitsOnly = false
				}
				j += size
			}
			name := strings.Trim(string(text[i+1:j]), "/")
			if name != "" && !digitsOnly {
				found(name, i, j)
			}
			i = max(j, i+1)
			continue
		}
		i++
	}
}

// ValidTag says why name (without '#') is not a tag Obsidian would
// recognise, or "" when it is.
func ValidTag(name string) string {
	if name == "" || strings.Trim(name, "/") != name {
		return "must be a tag name such as project or area/home, without a leading or trailing '/'"
	}
	digits := true
	for _, r := range name {
		if !tagRune(r) {
			return fmt.Sprintf("%q cannot be in a tag: use letters, digits, _, - and / (for nesting)", r)
		}
		digits = digits && unicode.IsDigit(r)
	}
	if digits {
		return "must not be only digits (Obsidian does not read #123 as a tag)"
	}
	return ""
}

func isSpaceBefore(text []byte, i int) bool {
	r, _ := utf8.DecodeLastRune(text[:i])
	return unicode.IsSpace(r)
}

func tagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '_' || r == '-' || r == '/'
}

// Outline is a note's map: what outline tools answer.
type Outline struct {
	Headings []Heading `json:"headings" jsonschema:"every heading in order, with its level and line range"`
	Blocks   []Block   `json:"blocks" jsonschema:"every block id (^id) with its line"`
	// FrontmatterKeys lists the frontmatter's keys in order.
	FrontmatterKeys []string `json:"frontmatter_keys" jsonschema:"the frontmatter's property names, in order"`
	Lines           int      `json:"lines" jsonschema:"number of lines in the note"`
}

// Outline returns the note's map.
func (n *Note) Outline() Outline {
	o := Outline{Headings: n.Headings, Blocks: n.Blocks, FrontmatterKeys: []string{}, Lines: n.Lines}
	if o.Headings == nil {
		o.Headings = []Heading{}
	}
	if o.Blocks == nil {
		o.Blocks = []Block{}
	}
	for _, p := range n.Properties {
		o.FrontmatterKeys = append(o.FrontmatterKeys, p.Key)
	}
	return o
}

// HeadingPath is heading i's path from the top: "Plan > Risks".
func (n *Note) HeadingPath(i int) string {
	parts := []string{n.Headings[i].Text}
	level := n.Headings[i].Level
	for j := i - 1; j >= 0; j-- {
		if n.Headings[j].Level < level {
			parts = append(parts, n.Headings[j].Text)
			level = n.Headings[j].Level
		}
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, " > ")
}

// FindSection finds the heading a section path names: "Plan > Risks" (each
// part a heading nested, at any depth, in the one before) or a single
// heading's text. Matching ignores case and surrounding spaces. It returns
// the heading's index, or -1 with the full paths of every candidate when
// none or several match (no candidates: nothing matched).
func (n *Note) FindSection(sectionPath string) (int, []string) {
	var raw, stripped []string
	for _, p := range strings.Split(sectionPath, ">") {
		p = strings.TrimSpace(p)
		raw = append(raw, p)
		// "## Budget" as copied from the note is the heading Budget, when
		// no heading's text is "## Budget" itself.
		if rest := strings.TrimLeft(p, "#"); rest != p && strings.HasPrefix(rest, " ") {
			p = strings.TrimSpace(rest)
		}
		stripped = append(stripped, p)
	}
	// A heading whose own text holds '>' cannot be named by splitting
	// the path: the path is also taken whole, as a heading's text or full
	// path, and a name that means two headings either way is refused
	// rather than resolved to the wrong one (found by fuzzing: "# >" was
	// found as the empty heading nested in an empty one).
	matches := n.sectionMatches(raw)
	for _, i := range n.wholeMatches(strings.TrimSpace(sectionPath)) {
		if !slices.Contains(matches, i) {
			matches = append(matches, i)
		}
	}
	if len(matches) == 0 {
		matches = n.sectionMatches(stripped)
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	cands := make([]string, 0, len(matches))
	for _, i := range matches {
		cands = append(cands, fmt.Sprintf("%s (line %d)", n.HeadingPath(i), n.Headings[i].Line))
	}
	return -1, cands
}

// wholeMatches returns the headings whose text, or full path, is q.
func (n *Note) wholeMatches(q string) []int {
	var out []int
	for i, h := range n.Headings {
		// The path is trimmed as q is: an empty top heading starts it with
		// a space (found by fuzzing: "#\n##\n###\n## >").
		if strings.Contains(q, ">") && (strings.EqualFold(h.Text, q) || strings.EqualFold(strings.TrimSpace(n.HeadingPath(i)), q)) {
			out = append(out, i)
		}
	}
	return out
}

// sectionMatches returns the headings a path's parts name: the last part
// the heading's text, the others enclosing headings' texts, in order.
func (n *Note) sectionMatches(parts []string) []int {
	var matches []int
	for i, h := range n.Headings {
		if !strings.EqualFold(h.Text, parts[len(parts)-1]) {
			continue
		}
		// Walk up through the enclosing headings, matching the other parts
		// from the right.
		k := len(parts) - 2
		level := h.Level
		for j := i - 1; j >= 0 && k >= 0; j-- {
			if n.Headings[j].Level < level {
				level = n.Headings[j].Level
				if strings.EqualFold(n.Headings[j].Text, parts[k]) {
					k--
				}
			}
		}
		if k < 0 {
			matches = append(matches, i)
		}
	}
	return matches
}
