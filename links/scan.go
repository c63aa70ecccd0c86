// Package links finds, resolves and rewrites the internal links of Obsidian
// notes: wikilinks ([[Note]], [[Note#Heading|alias]], ![[embed]]) and
// Markdown links ([text](folder/Note%20name.md)). It follows Obsidian's own
// rules where they are known, so that a note moved by this server keeps
// every link that pointed at it, as Obsidian's "Automatically update
// internal links" setting would.
//
// It does no I/O.
package links

import (
	"bytes"
	"net/url"
	"strings"
)

// Link is one internal link in a note's text.
type Link struct {
	// Markdown is true for [text](dest) links, false for wikilinks.
	Markdown bool
	// Embed is true for ![[…]] and ![…](…).
	Embed bool
	// Start and End delimit the link's path in the text: the bytes a
	// rewrite replaces. Subpath (#Heading, #^block), alias and title lie
	// outside it and are kept.
	Start, End int
	// Path is the link path as Obsidian resolves it: for Markdown links
	// URL-decoded, never with the subpath.
	Path string
	// Angle is true for a Markdown destination written <like this>, where
	// spaces need no encoding.
	Angle bool
	// SubStart and SubEnd delimit the subpath after the path's '#'
	// ([[Note#Plan#Risks|x]]: "Plan#Risks"; in a Markdown link still
	// percent-encoded); both are 0 when the link has none.
	SubStart, SubEnd int
}

// Scan returns the internal links in text, in order. Links inside fenced
// code blocks and inline code spans are not links, and links with a URL
// scheme (https:, mailto:, obsidian:) or to a heading of the same note
// ([[#Heading]]) are not internal links to another file.
func Scan(text []byte) []Link {
	var out []Link
	for _, span := range prose(text) {
		out = scanProse(text, span[0], span[1], false, out)
	}
	return out
}

// ScanAll is Scan with the links to the note's own headings and blocks
// too ([[#Heading]], [text](#Heading)): those have an empty Path.
func ScanAll(text []byte) []Link {
	var out []Link
	for _, span := range prose(text) {
		out = scanProse(text, span[0], span[1], true, out)
	}
	return out
}

// prose returns the [start, end) ranges of text outside fenced code blocks.
func prose(text []byte) [][2]int {
	var spans [][2]int
	start, off := 0, 0
	var fence []byte // the opening fence while inside a block
	for off < len(text) {
		end := bytes.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line := text[off:next]
		if f := fenceOf(line); f != nil {
			switch {
			case fence == nil:
				if off > start {
					spans = append(spans, [2]int{start, off})
				}
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && len(bytes.TrimSpace(line)) == len(f):
				fence = nil
				start = next
			}
		}
		off = next
	}
	if fence == nil && start < len(text) {
		spans = append(spans, [2]int{start, len(text)})
	}
	return spans
}

// fenceOf returns the run of ``` or ~~~ (three or more) that opens line
// after at most three spaces of indentation, or nil.
func fenceOf(line []byte) []byte {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return nil
	}
	c, j := line[i], i
	for j < len(line) && line[j] == c {
		j++
	}
	if j-i < 3 {
		return nil
	}
	if c == '`' && bytes.IndexByte(line[j:], '`') >= 0 {
		return nil // "```a``` is inline code, not a fence
	}
	return line[i:j]
}

func scanProse(text []byte, from, to int, self bool, out []Link) []Link {
	i := from
	for i < to {
		switch c := text[i]; {
		case c == '\\':
			i += 2 // an escaped character is never markup
		case c == '`':
			i = skipCode(text, i, to)
		case c == '[' && i+1 < to && text[i+1] == '[':
			l, next, ok := wikilink(text, i, to, self)
			if ok {
				out = append(out, l)
			}
			i = next
		case c == ']' && i+1 < to && text[i+1] == '(':
			if l, next, ok := mdlink(text, from, i, to, self); ok {
				out = append(out, l)
				i = next
			} else {
				i += 2
			}
		default:
			i++
		}
	}
	return out
}

// skipCode returns the offset after the inline code span opening at i, or
// after the backtick run when it is never closed (then it is literal text).
// A span does not cross a blank line.
func skipCode(text []byte, i, to int) int {
	n := 0
	for i+n < to && text[i+n] == '`' {
		n++
	}
	j := i + n
	for j < to {
		switch text[j] {
		case '`':
			m := 0
			for j+m < to && text[j+m] == '`' {
				m++
			}
			if m == n {
				return j + m
			}
			j += m
		case '\n':
			k := j + 1
			for k < to && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r') {
				k++
			}
			if k >= to || text[k] == '\n' {
				return i + n
			}
			j++
		default:
			j++
		}
	}
	return i + n
}

// wikilink parses [[…]] at i. It returns the offset to continue from.
func wikilink(text []byte, i, to int, self bool) (Link, int, bool) {
	body := i + 2
	end := -1
	for j := body; j+1 < to; j++ {
		if text[j] == '\n' {
			break
		}
		if text[j] == ']' && text[j+1] == ']' {
			end = j
			break
		}
	}
	if end < 0 {
		return Link{}, i + 2, false
	}
	// The path ends at the subpath '#', the alias '|', or a '\|' escaped
	// for a table cell.
	pend := body
	for pend < end && text[pend] != '#' && text[pend] != '|' && !(text[pend] == '\\' && pend+1 < end && text[pend+1] == '|') {
		pend++
	}
	p := string(text[body:pend])
	l := Link{Embed: i > 0 && text[i-1] == '!', Start: body, End: pend, Path: p}
	if pend < end && text[pend] == '#' {
		l.SubStart = pend + 1
		l.SubEnd = l.SubStart
		for l.SubEnd < end && text[l.SubEnd] != '|' && !(text[l.SubEnd] == '\\' && l.SubEnd+1 < end && text[l.SubEnd+1] == '|') {
			l.SubEnd++
		}
	}
	if strings.TrimSpace(p) == "" {
		if self && p == "" && l.SubEnd > l.SubStart {
			return l, end + 2, true
		}
		return Link{}, end + 2, false
	}
	return l, end + 2, true
}

// mdlink parses the destination of a Markdown link whose text ends at the
// ']' at close. from bounds the search for the opening '['.
func mdlink(text []byte, from, close, to int, self bool) (Link, int, bool) {
	open := bytes.LastIndexByte(text[from:close], '[')
	if open < 0 || bytes.Contains(text[from+open:close], []byte("\n\n")) {
		return Link{}, 0, false
	}
	open += from
	l := Link{Markdown: true, Embed: open > 0 && text[open-1] == '!'}
	d := close + 2
	var end, next int
	if d < to && text[d] == '<' {
		end = d + 1
		for end < to && text[end] != '>' && text[end] != '\n' {
			end++
		}
		if end >= to || text[end] != '>' {
			return Link{}, 0, false
		}
		l.Angle, l.Start = true, d+1
		next = bytes.IndexByte(text[end:to], ')')
		if next < 0 {
			return Link{}, 0, false
		}
		next += end + 1
	} else {
		depth := 0
		end = d
	loop:
		for end < to {
			switch text[end] {
			case '\\':
				end++
			case '(':
				depth++
			case ')':
				if depth == 0 {
					break loop
				}
				depth--
			case ' ', '\t', '\n':
				break loop
			}
			end++
		}
		if end > to {
			end = to
		}
		l.Start = d
		rest := bytes.IndexByte(text[end:to], ')')
		if rest < 0 {
			return Link{}, 0, false
		}
		next = end + rest + 1
	}
	dest := string(text[l.Start:end])
	pathPart, sub, hasSub := strings.Cut(dest, "#")
	l.End = l.Start + len(pathPart)
	if hasSub && sub != "" {
		l.SubStart, l.SubEnd = l.End+1, end
	}
	if pathPart == "" && self && l.SubEnd > l.SubStart {
		return l, next, true
	}
	if pathPart == "" || hasScheme(pathPart) {
		return Link{}, 0, false
	}
	if l.Angle {
		l.Path = pathPart
	} else {
		p, err := url.PathUnescape(pathPart)
		if err != nil {
			p = pathPart
		}
		l.Path = p
	}
	return l, next, true
}

// hasScheme reports whether dest starts like a URL ("https:", "mailto:",
// "obsidian:"): a letter, then letters, digits, '+', '-' or '.', then ':'.
func hasScheme(dest string) bool {
	for i := 0; i < len(dest); i++ {
		c := dest[i]
		switch {
		case c == ':':
			return i > 1 // "C:" is a drive, not a scheme
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}

// Prose returns the [start, end) byte ranges of text outside fenced code
// blocks, in order: where Markdown structure (headings, tags, links) can be.
func Prose(text []byte) [][2]int { return prose(text) }

// CodeSpanEnd returns the offset just past the inline code span that opens
// with the backtick at i (text[i] == '`'), looking no further than to; when
// the run of backticks is never closed it is literal text, and the offset
// just past the run is returned.
func CodeSpanEnd(text []byte, i, to int) int { return skipCode(text, i, to) }
