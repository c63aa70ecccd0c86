package note

import (
	"bytes"
	"path"
	"strings"
)

// Append returns existing with content added at the end, as Obsidian's
// append does. Unless inline, content starts on a line of its own: a '\n'
// separates it from existing text that does not already end with one. (The
// CLI was seen turning "…spike" + "appended line" into "…spike\nappended
// line"; we add no blank line when the note already ends with a newline.)
func Append(existing, content []byte, inline bool) []byte {
	out := make([]byte, 0, len(existing)+len(content)+1)
	out = append(out, existing...)
	if !inline && len(existing) > 0 && existing[len(existing)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, content...)
}

// Prepend returns existing with content inserted after its frontmatter, as
// Obsidian's prepend does. Unless inline, a '\n' follows content even when
// content already ends with one: that is the CLI's observed behaviour
// ("- entry\n" before "# index" gives "- entry\n\n# index").
func Prepend(existing, content []byte, inline bool) []byte {
	fm := FrontmatterEnd(existing)
	at := max(fm, len(BOM(existing)))
	out := make([]byte, 0, len(existing)+len(content)+2)
	out = append(out, existing[:at]...)
	if fm > 0 && existing[fm-1] != '\n' {
		// Frontmatter closed at end of file without a newline.
		out = append(out, '\n')
	}
	out = append(out, content...)
	if !inline {
		out = append(out, '\n')
	}
	return append(out, existing[at:]...)
}

// FrontmatterEnd returns the offset just past a YAML frontmatter block (the
// closing '---' line and its newline), or 0 when b has none. Frontmatter
// starts on the first line with exactly '---' and ends at the next line that
// is exactly '---'; CRLF line ends are accepted.
func FrontmatterEnd(b []byte) int {
	if bom := BOM(b); bom != nil {
		// Obsidian reads notes without their byte order mark.
		if end := FrontmatterEnd(b[len(bom):]); end > 0 {
			return len(bom) + end
		}
		return 0
	}
	first, rest, ok := cutLine(b)
	if !ok || string(trimCR(first)) != "---" {
		return 0
	}
	off := len(b) - len(rest)
	for len(rest) > 0 {
		line, next, hasNL := cutLine(rest)
		lineEnd := off + len(line)
		if string(trimCR(line)) == "---" {
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

func trimCR(b []byte) []byte { return bytes.TrimSuffix(b, []byte{'\r'}) }

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
