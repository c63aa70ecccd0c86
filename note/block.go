package note

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// Text added to a note becomes a Markdown block of its own. Markdown joins
// lines that are not separated by a blank line: a line written under a
// paragraph continues the paragraph, one under a callout or a quote
// becomes part of it, one under a table becomes a row. So where new text
// meets a neighbour, a blank line goes between them, unless
//
//   - the text already brings one, or the neighbour already has one;
//   - one side is a heading, frontmatter, or the start or end of the note
//     (a heading is a block on one line, so nothing joins it; the note's
//     own spacing around headings is kept);
//   - the text continues what is there: list items (or indented lines)
//     next to a list, and, after existing text, table rows after a table
//     and quote lines after a quote or callout (a new callout, "> [!tip]",
//     starts its own block).
//
// Otherwise lines stay whole: text inserted before a line ends with a
// newline. Separators take the note's line ending.

// Newline is the note's line ending: CRLF when its first line ends so.
func Newline(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i > 0 && b[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// Separators returns what to put before and after text, inserted at a line
// boundary between before and after (either may be empty), so that text
// is a block of its own (see above). nl is the line ending to use. At the
// end of a note nothing follows text; at the start of its body, under
// frontmatter, nothing precedes it.
func Separators(before, text, after []byte, nl string) (lead, trail string) {
	if len(before) > len(BOM(before)) && before[len(before)-1] != '\n' {
		lead = nl
	}
	body := before[max(FrontmatterEnd(before), len(BOM(before))):]
	if breakBetween(body, text, true) {
		lead += nl
	}
	if len(after) == 0 {
		return lead, ""
	}
	if len(text) > 0 && text[len(text)-1] != '\n' {
		trail = nl
	}
	if breakBetween(text, after, false) {
		trail += nl
	}
	return lead, trail
}

// breakBetween reports whether a blank line must go between first and
// then, adjacent as whole lines, for then to start a block of its own;
// growing says then is the text being added after first.
func breakBetween(first, then []byte, growing bool) bool {
	block, blankAfter := lastBlock(first)
	next, blankBefore := firstLine(then)
	if len(block) == 0 || blankAfter || blankBefore || next == "" {
		return false
	}
	last := block[len(block)-1]
	switch {
	case heading(last) || heading(next):
		return false // a heading is a block on one line: nothing joins it
	case ListMarker(next) != "" || indented(next):
		return !hasList(block)
	case !growing:
		return true
	case strings.Contains(next, "|") && strings.Contains(last, "|") && hasDelimiterRow(block):
		return false
	case quote(next) && !callout(next) && quote(last):
		return false
	}
	return true
}

// lastBlock returns the lines of b's last block, up to a blank line, and
// whether a blank line follows it. A block that is very long is cut to
// its last lines, enough to tell a list from a paragraph.
func lastBlock(b []byte) (lines []string, blankAfter bool) {
	end := len(b) // the end of the current line, before its '\n'
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		if len(bytes.TrimSpace(b[start:end])) != 0 {
			break
		}
		blankAfter = true
		if start == 0 {
			return nil, blankAfter
		}
		end = start - 1
	}
	for len(lines) < maxBlockLines {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		line := strings.TrimSuffix(string(b[start:end]), "\r")
		if strings.TrimSpace(line) == "" {
			break
		}
		lines = append(lines, line)
		if start == 0 {
			break
		}
		end = start - 1
	}
	slices.Reverse(lines)
	return lines, blankAfter
}

// maxBlockLines bounds how far back a block is read.
const maxBlockLines = 200

// firstLine returns b's first line, or "" when b has no text, and whether
// it is blank (then the line that follows already separates).
func firstLine(b []byte) (line string, blank bool) {
	if len(bytes.TrimSpace(b)) == 0 {
		return "", false
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		i = len(b)
	}
	line = strings.TrimRight(string(b[:i]), "\r")
	if strings.TrimSpace(line) == "" {
		return "", true
	}
	return line, false
}

// heading reports an ATX heading line ("## Plan").
func heading(s string) bool {
	t := strings.TrimLeft(s, " ")
	if len(s)-len(t) > 3 {
		return false
	}
	n := len(t) - len(strings.TrimLeft(t, "#"))
	return n >= 1 && n <= 6 && (len(t) == n || t[n] == ' ' || t[n] == '\t')
}

func indented(s string) bool { return strings.HasPrefix(s, "  ") || strings.HasPrefix(s, "\t") }

func quote(s string) bool {
	t := strings.TrimLeft(s, " ")
	return len(s)-len(t) <= 3 && strings.HasPrefix(t, ">")
}

// callout reports the first line of a callout ("> [!note] Title").
func callout(s string) bool {
	t := strings.TrimLeft(strings.TrimLeft(s, " "), ">")
	return strings.HasPrefix(strings.TrimLeft(t, " "), "[!")
}

func hasList(block []string) bool {
	for _, l := range block {
		if ListMarker(l) != "" {
			return true
		}
	}
	return false
}

// delimiterRow matches a table's second line ("| --- | :-: |").
var delimiterRow = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

func hasDelimiterRow(block []string) bool {
	for _, l := range block {
		if strings.Contains(l, "|") && delimiterRow.MatchString(l) {
			return true
		}
	}
	return false
}

// thematicBreak matches "---", "* * *" and the like.
var thematicBreak = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)

// ListMarker returns a list item's leading marker ("- ", "  1. ",
// "- [ ] "), or "" when s does not start a list item.
func ListMarker(s string) string {
	if thematicBreak.MatchString(s) {
		return ""
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	switch {
	case j < len(s) && (s[j] == '-' || s[j] == '*' || s[j] == '+'):
		j++
	default:
		for j < len(s) && j-i < 9 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j >= len(s) || (s[j] != '.' && s[j] != ')') {
			return ""
		}
		j++
	}
	if j == len(s) {
		return s // an empty item: "-"
	}
	if s[j] != ' ' && s[j] != '\t' {
		return ""
	}
	j++
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		if strings.HasPrefix(s[j:], box) {
			j += len(box)
			break
		}
	}
	return s[:j]
}
