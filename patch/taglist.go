package patch

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
)

// tagList is the frontmatter's tags property as it is written, with where
// each tag sits in the note's bytes, so that renaming, adding or removing a
// tag changes those bytes alone: the list keeps its style (flow "[a, b]",
// block "- a" items, or a string "a b"), its quoting and its comments.
type tagList struct {
	kind  tagListKind
	items []tagItem
	// sep is written before an added tag in a flow list or a string.
	sep string
	// end is where the last tag's text ends, or, in an empty flow list,
	// just past its '['.
	end int
}

type tagListKind int

const (
	flowList tagListKind = iota
	blockList
	tagString
)

// tagItem is one tag of the list: its whole text (quotes included) is
// content[from:to], and its name content[nameFrom:nameTo] (without '#' or
// a trailing '/').
type tagItem struct {
	from, to         int
	nameFrom, nameTo int
	name             string
}

// readTagList finds the tags property of content. It returns nil and true
// when there is none (nothing to keep), and false when the property is
// written in a form this reader does not place exactly (an alias, an
// escaped or multi-line string): the caller then rewrites the property.
func readTagList(content []byte) (*tagList, bool) {
	fm := frontmatter(content)
	if fm.end == 0 {
		return nil, true
	}
	r := tagReader{content: content, inner: content[fm.body:fm.close], base: fm.body}
	value := tagsValue(r.inner)
	switch {
	case value == nil:
		return nil, true
	case value.Kind == yaml.SequenceNode:
		return r.sequence(value)
	case value.Kind == yaml.ScalarNode && value.Tag == "!!str":
		return r.str(value)
	}
	return nil, false // empty, a number, a mapping, an alias
}

// tagsValue is the node of the tags property in the frontmatter inner
// ("tags" or "tag", the last one winning, as in metadata), or nil when
// there is none Obsidian would read.
func tagsValue(inner []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(inner, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := doc.Content[0]
	var value *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := strings.ToLower(m.Content[i].Value); k == "tags" || k == "tag" {
			value = m.Content[i+1]
		}
	}
	return value
}

// tagReader places the tags property's nodes in content, whose
// frontmatter inner starts at base.
type tagReader struct {
	content, inner []byte
	base           int
}

// text finds a scalar's text: where it starts in content and its value's
// bytes, which must be written as they read (no escapes).
func (r tagReader) text(s *yaml.Node) (int, bool) {
	at, ok := offsetOf(r.inner, s.Line, s.Column)
	if !ok || s.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch s.Style {
	case 0:
	case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		at++
	default:
		return 0, false
	}
	if !bytes.HasPrefix(r.inner[at:], []byte(s.Value)) || bytes.ContainsAny([]byte(s.Value), "\r\n") {
		return 0, false
	}
	return r.base + at, true
}

// sequence reads a list of tags, flow ("[a, b]") or block ("- a").
func (r tagReader) sequence(value *yaml.Node) (*tagList, bool) {
	l := &tagList{kind: blockList, sep: ", "}
	if value.Style&yaml.FlowStyle != 0 {
		l.kind = flowList
		open, ok := offsetOf(r.inner, value.Line, value.Column)
		if !ok || r.inner[open] != '[' {
			return nil, false
		}
		l.end = r.base + open + 1
	}
	for _, item := range value.Content {
		at, ok := r.text(item)
		if !ok {
			return nil, false
		}
		quoted := 0
		if item.Style != 0 {
			quoted = 1
		}
		it := newTagItem(r.content, at-quoted, at+len(item.Value)+quoted, at, at+len(item.Value))
		if l.kind == blockList && !blockItemLine(r.content, it.from) {
			return nil, false
		}
		l.items = append(l.items, it)
		l.end = it.to
	}
	if l.kind == blockList && len(l.items) == 0 {
		return nil, false
	}
	return l, true
}

// str reads tags written as one string, apart by spaces or commas.
func (r tagReader) str(value *yaml.Node) (*tagList, bool) {
	at, ok := r.text(value)
	if !ok {
		return nil, false
	}
	l := &tagList{kind: tagString, sep: " ", end: at + len(value.Value)}
	if strings.Contains(value.Value, ",") {
		l.sep = ", "
	}
	start := -1
	for i := at; i <= l.end; i++ {
		sep := i == l.end || r.content[i] == ',' || r.content[i] == ' ' || r.content[i] == '\t'
		switch {
		case sep && start >= 0:
			l.items = append(l.items, newTagItem(r.content, start, i, start, i))
			start = -1
		case !sep && start < 0:
			start = i
		}
	}
	return l, true
}

// newTagItem is the item written at content[from:to] whose text is
// content[textFrom:textTo] (inside its quotes).
func newTagItem(content []byte, from, to, textFrom, textTo int) tagItem {
	it := tagItem{from: from, to: to}
	it.nameFrom, it.nameTo = tagName(content, textFrom, textTo)
	it.name = string(content[it.nameFrom:it.nameTo])
	return it
}

// editInPlace edits the tags property of content in its own bytes: each
// item is renamed (to a non-empty name) or dropped as each says, in order,
// and add is appended. ok is false when there is no property, or it cannot
// be edited in place; the caller then rewrites it.
func editInPlace(content []byte, each func(it tagItem) (rename string, drop bool), add []string) ([]byte, bool) {
	l, ok := readTagList(content)
	if !ok || l == nil {
		return nil, false
	}
	rename := make([]string, len(l.items))
	drop := make([]bool, len(l.items))
	if each != nil {
		for i, it := range l.items {
			rename[i], drop[i] = each(it)
		}
	}
	return l.edit(content, rename, drop, add)
}

// tagName narrows content[from:to] to the tag's name, as metadata reads it:
// without leading '#' and trailing '/'.
func tagName(content []byte, from, to int) (int, int) {
	for from < to && content[from] == '#' {
		from++
	}
	for to > from && content[to-1] == '/' {
		to--
	}
	return from, to
}

// blockItemLine reports whether the block list item whose text starts at
// at is alone on its line after its "- ".
func blockItemLine(content []byte, at int) bool {
	start := bytes.LastIndexByte(content[:at], '\n') + 1
	lead := strings.TrimLeft(string(content[start:at]), " \t")
	return strings.TrimRight(lead, " \t") == "-" && len(lead) > 1
}

// lineSpan is the whole line (its end of line included) holding offset at.
func lineSpan(content []byte, at int) (int, int) {
	start := bytes.LastIndexByte(content[:at], '\n') + 1
	end := bytes.IndexByte(content[at:], '\n')
	if end < 0 {
		return start, len(content)
	}
	return start, at + end + 1
}

// change is one replacement of content[from:to] by text.
type change struct {
	from, to int
	text     string
}

// edit changes the list: rename[i] (when set) is item i's new name, drop[i]
// removes it, and add is appended. It returns ok false when the result
// would not read back as exactly those tags, which the caller then writes
// by rewriting the property.
func (l *tagList) edit(content []byte, rename []string, drop []bool, add []string) ([]byte, bool) {
	var changes []change
	lastKept := -1
	for i := range l.items {
		if !drop[i] {
			lastKept = i
		}
	}
	var want []string
	for i, it := range l.items {
		switch {
		case drop[i] && l.kind == blockList:
			from, to := lineSpan(content, it.from)
			changes = append(changes, change{from, to, ""})
		case drop[i] && i < lastKept:
			changes = append(changes, change{it.from, l.items[i+1].from, ""})
		case drop[i]:
		case rename[i] != "":
			changes = append(changes, change{it.nameFrom, it.nameTo, rename[i]})
			want = append(want, rename[i])
		default:
			want = append(want, it.name)
		}
	}
	if l.kind != blockList && lastKept < len(l.items)-1 {
		// The trailing tags go with the separators before them.
		var from int
		switch {
		case lastKept >= 0:
			from = l.items[lastKept].to
		case l.kind == flowList:
			from = l.items[0].from
		default:
			return nil, false // every tag of a string dropped: the caller removes the property
		}
		changes = append(changes, change{from, l.items[len(l.items)-1].to, ""})
	}
	if len(add) > 0 {
		var text strings.Builder
		at := l.end
		switch {
		case l.kind == blockList:
			last := l.items[len(l.items)-1]
			start, end := lineSpan(content, last.from)
			nl := "\n"
			if bytes.HasSuffix(content[start:end], []byte("\r\n")) {
				nl = "\r\n"
			} else if !bytes.HasSuffix(content[start:end], []byte("\n")) {
				return nil, false
			}
			for _, t := range add {
				text.WriteString(string(content[start:last.from]) + t + nl)
			}
			at = end
		default:
			for i, t := range add {
				if i > 0 || lastKept >= 0 {
					text.WriteString(l.sep)
				}
				text.WriteString(t)
			}
			if lastKept >= 0 {
				at = l.items[lastKept].to
			} else if len(l.items) > 0 {
				at = l.items[0].from
			}
		}
		changes = append(changes, change{at, at, text.String()})
		want = append(want, add...)
	}
	slices.SortStableFunc(changes, func(a, b change) int { return a.from - b.from })
	out := make([]byte, 0, len(content)+64)
	prev := 0
	for _, c := range changes {
		if c.from < prev {
			return nil, false
		}
		out = append(append(out, content[prev:c.from]...), c.text...)
		prev = c.to
	}
	out = append(out, content[prev:]...)
	_, got := frontmatterTags(metadata.Parse(out))
	if !slices.Equal(got, want) {
		return nil, false
	}
	return out, true
}

// offsetOf is the byte offset in text of a YAML position (line and column
// from 1; columns count characters).
func offsetOf(text []byte, line, column int) (int, bool) {
	at := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(text[at:], '\n')
		if i < 0 {
			return 0, false
		}
		at += i + 1
	}
	for c := 1; c < column; c++ {
		if at >= len(text) || text[at] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(text[at:])
		at += size
	}
	return at, at < len(text)
}
