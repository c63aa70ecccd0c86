// Package patch edits one part of a note and leaves every other byte as it
// was: text goes before or after a section or a block, at the start or end
// of its body, or replaces its body. Targets are heading paths ("Plan >
// Risks", or a unique heading) and block ids (^id); a heading path may be
// created where it belongs. Inserted text takes the note's line ending, and
// whole lines stay whole.
//
// It does no I/O: backends read the note, call Apply, and write the result
// atomically only if the note is still the one they read.
package patch

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The operations.
const (
	Before  = "before"  // just before the heading line, or the block
	After   = "after"   // just after the whole section (subsections included), or the block
	Prepend = "prepend" // at the start of the body: right after the heading line, or before the block's text
	Append  = "append"  // at the end of the heading's own body (before its first subheading), or of the block's text
	Replace = "replace" // the heading's own body (subsections are kept), or the block's text (its ^id is kept)
)

// Target names what to edit: exactly one of Heading and Block.
type Target struct {
	Heading string
	Block   string
}

// Result is an applied patch.
type Result struct {
	Content []byte
	// Start and End delimit the new text in Content; for an insertion,
	// removing Content[Start:End] gives the note back byte for byte.
	Start, End int
	// Created is the heading path that was added (create_if_missing).
	Created string
}

// Apply applies op with text at t in content. createIfMissing adds a
// missing heading path at the end of its deepest existing ancestor's
// section (or of the note) instead of failing.
func Apply(content []byte, t Target, op, text string, createIfMissing bool) (Result, error) {
	return underBOM(content, func(content []byte) (Result, error) { return apply(content, t, op, text, createIfMissing) })
}

// underBOM runs edit on content without its byte order mark, if it has
// one, and puts the mark back in front: Obsidian reads notes without it,
// so a heading or frontmatter on the first line is found, and nothing is
// ever inserted before it.
func underBOM(content []byte, edit func([]byte) (Result, error)) (Result, error) {
	bom := note.BOM(content)
	if bom == nil {
		return edit(content)
	}
	r, err := edit(content[len(bom):])
	if err != nil {
		return r, err
	}
	r.Content = append(append([]byte{}, bom...), r.Content...)
	r.Start += len(bom)
	r.End += len(bom)
	return r, nil
}

func apply(content []byte, t Target, op, text string, createIfMissing bool) (Result, error) {
	switch op {
	case Before, After, Prepend, Append, Replace:
	default:
		return Result{}, errors.InvalidFields(errors.Field{Field: "operation", Message: "must be one of: before, after, prepend, append, replace"})
	}
	n := metadata.Parse(content)
	lines := metadata.LinesOf(content)
	nl := note.Newline(content)
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", nl)
	if t.Block != "" {
		return applyBlock(content, n, lines, strings.TrimPrefix(t.Block, "^"), op, text, nl)
	}
	i, cands := n.FindSection(t.Heading)
	if i < 0 {
		if len(cands) > 0 {
			return Result{}, AmbiguousHeading(fmt.Sprintf("the heading %q matches %d headings; nothing was changed", t.Heading, len(cands)), cands)
		}
		if !createIfMissing {
			e := MissingHeading(n, t.Heading, fmt.Sprintf("no heading %q in the note; nothing was changed", t.Heading))
			return Result{}, e.WithHint(e.Hint + " Or set create_if_missing to add it.")
		}
		return create(content, n, lines, t.Heading, text, nl)
	}
	h := n.Headings[i]
	at := func(line int) int { return lines.Start(line) }
	ownEnd := at(h.EndLine + 1)
	if i+1 < len(n.Headings) && n.Headings[i+1].Line <= h.EndLine {
		ownEnd = at(n.Headings[i+1].Line) // its first subheading
	}
	bodyStart := at(h.Line + 1)
	switch op {
	case Before:
		return insert(content, at(h.Line), text, nl), nil
	case After:
		return insert(content, at(h.EndLine+1), text, nl), nil
	case Prepend:
		return insert(content, bodyStart, text, nl), nil
	case Append:
		return insert(content, max(bodyStart, trimBlankTail(content, bodyStart, ownEnd)), text, nl), nil
	}
	end := max(bodyStart, trimBlankTail(content, bodyStart, ownEnd))
	return replace(content, bodyStart, end, text, nl), nil
}

// applyBlock edits the block carrying ^id: the line it ends, back to the
// start of its paragraph.
func applyBlock(content []byte, n *metadata.Note, lines metadata.Lines, id, op, text, nl string) (Result, error) {
	var found []int
	for _, b := range n.Blocks {
		if b.ID == id {
			found = append(found, b.Line)
		}
	}
	switch len(found) {
	case 0:
		return Result{}, missingBlock(n, id)
	case 1:
	default:
		return Result{}, errors.E(errors.AmbiguousName, "the block id ^%s appears %d times in the note; nothing was changed", id, len(found)).
			WithHint("Give one of the blocks a distinct id first.")
	}
	last := found[0]
	first := last
	for first > 1 && paragraphLine(lineText(content, lines, first-1)) && paragraphLine(lineText(content, lines, first)) && !listItem(lineText(content, lines, first)) {
		first--
	}
	start := lines.Start(first)
	lineEnd := lines.Start(last) + len(lineText(content, lines, last))
	marker := bytes.LastIndex(content[start:lineEnd], []byte("^"+id)) + start
	textEnd := marker
	for textEnd > start && (content[textEnd-1] == ' ' || content[textEnd-1] == '\t') {
		textEnd--
	}
	textStart := min(marker, start+len(note.ListMarker(lineText(content, lines, first))))
	textEnd = max(textEnd, textStart) // an empty item: "- ^id"
	switch op {
	case Before:
		return insert(content, start, text, nl), nil
	case After:
		return insert(content, lines.Start(last+1), text, nl), nil
	case Prepend:
		return splice(content, textStart, textStart, text+" "), nil
	case Append:
		return splice(content, textEnd, textEnd, " "+text), nil
	}
	return splice(content, textStart, textEnd, strings.TrimRight(text, "\r\n")), nil
}

// create adds the missing part of a heading path, then text under it.
func create(content []byte, n *metadata.Note, lines metadata.Lines, path, text, nl string) (Result, error) {
	parts := strings.Split(path, ">")
	for k := range parts {
		parts[k] = strings.TrimSpace(parts[k])
	}
	// The deepest existing ancestor: the longest prefix of the path that
	// resolves to exactly one heading.
	anc, level, at := -1, topLevel(n), len(content)
	depth := 0
	for k := len(parts) - 1; k >= 1; k-- {
		if i, _ := n.FindSection(strings.Join(parts[:k], " > ")); i >= 0 {
			anc, depth = i, k
			break
		}
	}
	if anc >= 0 {
		level = n.Headings[anc].Level + 1
		at = lines.Start(n.Headings[anc].EndLine + 1)
	}
	var b strings.Builder
	for k := depth; k < len(parts); k++ {
		b.WriteString(strings.Repeat("#", min(6, level+k-depth)) + " " + parts[k] + nl)
	}
	body := b.String() + text
	r := insert(content, at, body, nl)
	r.Created = strings.Join(parts, " > ")
	return r, nil
}

// topLevel is the level a new top heading gets: the note's highest level,
// one below it when that level holds only a title at the top.
func topLevel(n *metadata.Note) int {
	if len(n.Headings) == 0 {
		return 1
	}
	lv, count := 7, 0
	for _, h := range n.Headings {
		if h.Level < lv {
			lv, count = h.Level, 0
		}
		if h.Level == lv {
			count++
		}
	}
	if count == 1 && n.Headings[0].Level == lv && len(n.Headings) > 1 {
		return min(6, lv+1)
	}
	return lv
}

// insert puts text as whole lines at at, a line start (or the end), as a
// Markdown block of its own (note.Separators).
func insert(content []byte, at int, text, nl string) Result {
	return replace(content, at, at, text, nl)
}

// replace puts text in place of content[from:to], as whole lines and a
// Markdown block of its own.
func replace(content []byte, from, to int, text, nl string) Result {
	if text == "" {
		return splice(content, from, to, "")
	}
	lead, trail := note.Separators(content[:from], []byte(text), content[to:], nl)
	if to == len(content) && !strings.HasSuffix(text, "\n") {
		trail = nl // whole lines, at the end of the note too
	}
	return splice(content, from, to, lead+text+trail)
}

func splice(content []byte, from, to int, text string) Result {
	out := make([]byte, 0, len(content)-(to-from)+len(text))
	out = append(out, content[:from]...)
	out = append(out, text...)
	out = append(out, content[to:]...)
	return Result{Content: out, Start: from, End: from + len(text)}
}

// trimBlankTail returns where the blank lines at the end of
// content[from:to] begin.
func trimBlankTail(content []byte, from, to int) int {
	end := to
	for end > from {
		prev := bytes.LastIndexByte(content[from:max(from, end-1)], '\n')
		lineStart := from
		if prev >= 0 {
			lineStart = from + prev + 1
		}
		if len(bytes.TrimSpace(content[lineStart:end])) != 0 {
			return end
		}
		end = lineStart
	}
	return end
}

// lineText is line n without its line ending.
func lineText(content []byte, lines metadata.Lines, n int) string {
	start := lines.Start(n)
	end := lines.Start(n + 1)
	return strings.TrimRight(string(content[start:end]), "\r\n")
}

// paragraphLine reports whether a line can be part of a paragraph.
func paragraphLine(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") && !strings.HasPrefix(t, ">")
}

// listItem reports whether a line starts a list item.
func listItem(s string) bool { return note.ListMarker(s) != "" }
