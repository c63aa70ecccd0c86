package patch

import (
	"bytes"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// CheckHeadingText says what is wrong with text as a heading's new text
// ("" when nothing): one line, not empty, not starting with #.
func CheckHeadingText(text string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return "must not be empty"
	case strings.ContainsAny(text, "\r\n"):
		return "must be one line: a heading is"
	case len(text) > 500:
		return "must be at most 500 bytes"
	case strings.HasPrefix(t, "#"):
		return "is the heading's text, without the #s (its level stays)"
	}
	for _, r := range text {
		if r < ' ' && r != '\t' || r == 0x7f {
			return "must not hold control characters"
		}
	}
	return ""
}

// Outline is a note's headings as a heading rename needs them.
func Outline(n *metadata.Note) []note.OutlineEntry {
	out := make([]note.OutlineEntry, len(n.Headings))
	for i, h := range n.Headings {
		out[i] = note.OutlineEntry{Level: h.Level, Text: h.Text}
	}
	return out
}

// RenameHeading applies plan to one note, at path source: in the plan's
// target, the heading it renames gets its new text (if it still has its
// old one at its place in the outline: applied twice, the rename changes
// nothing more); in every note, the links to the heading follow
// (links.HeadingRename). renamed says the heading line changed; n counts
// the links rewritten. files resolves the links' paths.
func RenameHeading(content []byte, source string, plan note.HeadingPlan, files *links.Index) (out []byte, renamed bool, n int, err error) {
	if plan.Index < 0 || plan.Index >= len(plan.Outline) {
		return nil, false, 0, errors.E(errors.Internal, "a heading rename names heading %d of an outline of %d", plan.Index, len(plan.Outline))
	}
	out = content
	if source == plan.Target {
		out, renamed = renameHeadingLine(content, plan)
	}
	outline := make([]links.Heading, len(plan.Outline))
	for i, h := range plan.Outline {
		outline[i] = links.Heading{Level: h.Level, Text: h.Text}
	}
	h := &links.HeadingRename{Target: plan.Target, Outline: outline, Index: plan.Index, New: strings.TrimSpace(plan.To), Files: files}
	out, n = h.Rewrite(out, source)
	return out, renamed, n, nil
}

// renameHeadingLine gives the plan's heading its new text in content, when
// the heading at its place still has its old text.
func renameHeadingLine(content []byte, plan note.HeadingPlan) ([]byte, bool) {
	n := metadata.Parse(content)
	old := plan.Outline[plan.Index]
	if plan.Index >= len(n.Headings) || n.Headings[plan.Index].Text != old.Text || n.Headings[plan.Index].Level != old.Level {
		return content, false
	}
	lines := metadata.LinesOf(content)
	line := n.Headings[plan.Index].Line
	start, end := lines.Start(line), lines.Start(line+1)
	text := content[start:end]
	// The line's ending, kept.
	body := bytes.TrimRight(text, "\r\n")
	ending := text[len(body):]
	// Indentation, the #s and the space after them; the closing #s.
	i := 0
	for i < len(body) && body[i] == ' ' {
		i++
	}
	for i < len(body) && body[i] == '#' {
		i++
	}
	for i < len(body) && (body[i] == ' ' || body[i] == '\t') {
		i++
	}
	j := len(bytes.TrimRight(body, " \t"))
	closing := j
	for closing > i && body[closing-1] == '#' {
		closing--
	}
	if closing < j && closing > i && (body[closing-1] == ' ' || body[closing-1] == '\t') {
		j = closing
		for j > i && (body[j-1] == ' ' || body[j-1] == '\t') {
			j--
		}
	}
	repl := make([]byte, 0, len(text)+len(plan.To))
	repl = append(repl, body[:i]...)
	repl = append(repl, strings.TrimSpace(plan.To)...)
	repl = append(repl, body[j:]...)
	repl = append(repl, ending...)
	if bytes.Equal(repl, text) {
		return content, false
	}
	out := make([]byte, 0, len(content)+len(plan.To))
	out = append(out, content[:start]...)
	out = append(out, repl...)
	return append(out, content[end:]...), true
}
