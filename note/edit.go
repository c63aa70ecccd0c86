package note

import (
	"bytes"
	"path"
	"strings"
)

// Append returns existing with content added at the end. Unless inline,
// content becomes a Markdown block of its own (see Separators): it starts
// on a new line, after a blank line where it would otherwise join the
// paragraph, callout, quote or table before it. Inline, it is joined to
// the last line as sent.
func Append(existing, content []byte, inline bool) []byte {
	lead := AppendSeparator(existing, content, inline)
	out := make([]byte, 0, len(existing)+len(lead)+len(content))
	return append(append(append(out, existing...), lead...), content...)
}

// AppendSeparator is what Append puts between existing and content.
func AppendSeparator(existing, content []byte, inline bool) string {
	if inline {
		return ""
	}
	lead, _ := Separators(existing, content, nil, Newline(existing))
	return lead
}

// Prepend returns existing with content inserted at the top of its body,
// after the frontmatter, as Obsidian's prepend does. Unless inline,
// content becomes a block of its own (see Separators): it ends its line,
// and a blank line follows unless it continues the list that follows, or
// the body already starts with one.
func Prepend(existing, content []byte, inline bool) []byte {
	at, lead, trail := PrependSeparators(existing, content, inline)
	out := make([]byte, 0, len(existing)+len(lead)+len(content)+len(trail))
	out = append(append(append(out, existing[:at]...), lead...), content...)
	return append(append(out, trail...), existing[at:]...)
}

// PrependSeparators returns where Prepend inserts content in existing, and
// what it puts before and after it. Frontmatter closed at the end of the
// file without a newline gets one, inline or not.
func PrependSeparators(existing, content []byte, inline bool) (at int, lead, trail string) {
	fm := FrontmatterEnd(existing)
	at = max(fm, len(BOM(existing)))
	nl := Newline(existing)
	if fm > 0 && existing[fm-1] != '\n' {
		lead = nl
	}
	if inline {
		return at, lead, ""
	}
	_, trail = Separators(existing[:at], content, existing[at:], nl)
	if at == len(existing) && len(content) > 0 && content[len(content)-1] != '\n' {
		trail = nl // an empty body: content still ends its line
	}
	return at, lead, trail
}

// FrontmatterEnd returns the offset just past a YAML frontmatter block (the
// closing '---' line and its newline), or 0 when b has none. Frontmatter
// starts on the first line with exactly '---' and ends at the next line that
// is exactly '---'; CRLF line ends are accepted, a bare CR is not one (see
// IsFence).
func FrontmatterEnd(b []byte) int {
	if bom := BOM(b); bom != nil {
		// Obsidian reads notes without their byte order mark.
		if end := FrontmatterEnd(b[len(bom):]); end > 0 {
			return len(bom) + end
		}
		return 0
	}
	first, rest, ok := cutLine(b)
	if !ok || !IsFence(first, true) {
		return 0
	}
	off := len(b) - len(rest)
	for len(rest) > 0 {
		line, next, hasNL := cutLine(rest)
		lineEnd := off + len(line)
		if IsFence(line, hasNL) {
			if hasNL {
				return lineEnd + 1
			}
			return lineEnd
		}
		off = lineEnd + 1
		rest = next
	}
	return 0
}

// utf8BOM is the UTF-8 byte order mark some editors (Notepad) write.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// BOM returns the byte order mark b starts with, or nil.
func BOM(b []byte) []byte {
	if bytes.HasPrefix(b, utf8BOM) {
		return b[:len(utf8BOM)]
	}
	return nil
}

func cutLine(b []byte) (line, rest []byte, hasNL bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// IsFence reports whether line (without its '\n') is a frontmatter fence:
// exactly "---", with a CR before the newline when ended is true. A "---\r"
// that ends the file is not one: its CR ends no line, and reading it as a
// fence let an edit that cut text after a bare CR conjure properties out of
// the body (found by fuzzing).
func IsFence(line []byte, ended bool) bool {
	if ended {
		line = bytes.TrimSuffix(line, []byte{'\r'})
	}
	return string(line) == "---"
}

// MoveTarget returns the path a note at from ends up at when moved to to.
// to is a folder ("Archive", "Archive/", "" or "/" for the root) unless it
// ends with from's extension, in which case it is the full new path.
func MoveTarget(from, to string) string {
	if ext := path.Ext(from); ext != "" && strings.HasSuffix(strings.ToLower(to), strings.ToLower(ext)) && !strings.HasSuffix(to, "/") {
		return to
	}
	return Join(trimSlashes(to), path.Base(from))
}

// RenameTarget returns the path a note at from gets when renamed to
// newName. The extension is kept: it is added when newName lacks it.
func RenameTarget(from, newName string) string {
	ext := path.Ext(from)
	if ext != "" && !strings.HasSuffix(strings.ToLower(newName), strings.ToLower(ext)) {
		newName += ext
	}
	return Join(Dir(from), newName)
}
