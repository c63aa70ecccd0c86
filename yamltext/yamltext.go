// Package yamltext writes YAML scalars as people read them: every
// character as itself, emoji and every script included, quoted only where
// YAML would read the text as something else, and text of several lines
// as a literal block of those lines.
//
// yaml.v3's emitter counts every character outside the Basic Multilingual
// Plane as unprintable and escapes it (\U0001F34E), and then cannot write
// text holding one as a block: a task's 🍎 became an escape a model copied
// into an edit that found nothing, and a note read back as one escaped
// string. yaml.v3 still decides here how a plain word reads back.
package yamltext

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// How a string is written. YAML offers four forms; the first that says
// the string exactly is taken:
//
//   - plain (Inbox/Idea.md), when it reads back as that same string;
//   - single-quoted ('a: b'), when only YAML's syntax is in the way;
//   - a literal block (a note's lines under "content: |"), for text of
//     several lines;
//   - double-quoted, with escapes for what no other form may hold: control
//     characters (a tab included, outside a block), line and paragraph
//     separators, the byte-order mark and the two non-characters.
//
// Every other character, emoji and every script, is written as itself.

// Key is k as a mapping key; flow says it stands in a {…} on one line.
func Key(k string, flow bool) string {
	if strings.ContainsAny(k, "\n\r") {
		return DoubleQuoted(k)
	}
	return String(k, flow)
}

// PropertyKey is k as a frontmatter key: quoted only where YAML's syntax
// needs it, since a key is read as its text ("0", "true" and "null" are
// keys like any other in Obsidian's properties, and yaml.v3 wrote them
// plain).
func PropertyKey(k string) string {
	switch {
	case k == "" || strings.ContainsAny(k, "\n\r") || NeedsEscape(k):
		return DoubleQuoted(k)
	case plainSyntax(k, false):
		return k
	}
	return "'" + strings.ReplaceAll(k, "'", "''") + "'"
}

// String is s, which holds no line break, as one scalar; flow says it
// stands in a {…} or […] on one line.
func String(s string, flow bool) string {
	switch {
	case s == "":
		return `""`
	case NeedsEscape(s) || !readsAsString(s):
		// yaml.v3 writes a string that would read as another type ("true",
		// "0123", "2026-01-25") double-quoted too: the same text as before.
		return DoubleQuoted(s)
	case plainSyntax(s, flow):
		return s
	default:
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
}

// escaped reports whether r must be escaped wherever it stands.
func escaped(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff
}

// NeedsEscape reports whether s holds a character only a double-quoted
// scalar can say.
func NeedsEscape(s string) bool {
	for _, r := range s {
		if escaped(r) {
			return true
		}
	}
	return false
}

// readsAsString reports whether s, written plain, reads back as that
// string rather than a boolean, number, null or date, as yaml.v3 reads it
// (YAML 1.2's core schema, as Obsidian does: "yes" and "on" are words). A
// word of letters, digits and _./- that starts with a letter is one,
// unless it spells true, false or null; anything else is asked of yaml.v3.
func readsAsString(s string) bool {
	if simpleWord(s) && !strings.EqualFold(s, "true") && !strings.EqualFold(s, "false") && !strings.EqualFold(s, "null") {
		return true
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil || len(n.Content) != 1 {
		return true // not a plain scalar at all: its syntax decides (plainSyntax)
	}
	c := n.Content[0]
	return c.Kind != yaml.ScalarNode || c.Tag == "!!str"
}

func simpleWord(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}

// plainSyntax reports whether s may be written plain where it stands: not
// empty, no space at either end, no indicator first, no ": " or " #", no
// colon last, and in a flow collection none of , [ ] { }.
func plainSyntax(s string, flow bool) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' ||
		strings.Contains(s, ": ") || strings.Contains(s, " #") ||
		strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		return false
	}
	// In a flow collection yaml.v3's scanner (libyaml's) also stops a
	// plain word at a colon or a question mark.
	if flow && strings.ContainsAny(s, ",[]{}:?") {
		return false
	}
	switch s[0] {
	case '-', '?', ':':
		// "-5" reads as a number (readsAsString has said it does not);
		// "-x" is a word, "- x" a list.
		return len(s) > 1 && s[1] != ' '
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// DoubleQuoted is s double-quoted, escaping only what must be: any string
// can be written so.
func DoubleQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			switch {
			case r < 0x20 || r >= 0x7f && r <= 0xff && escaped(r):
				fmt.Fprintf(&b, `\x%02X`, r)
			case escaped(r):
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Literal is the text s of several lines as a literal block scalar, from
// the space after its key's colon to its last line break, the lines at
// indent; ok is false when a block cannot say s
// (a character that needs an escape, a carriage return not before a line
// feed, or no line with anything but spaces). A carriage return before a
// line feed is dropped: the block shows the note's lines, and the
// structured content keeps its bytes.
func Literal(s string, indent int) (string, bool) {
	if strings.Contains(s, "\r") {
		if strings.Count(s, "\r") != strings.Count(s, "\r\n") {
			return "", false
		}
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	if strings.TrimLeft(s, " \n") == "" {
		return "", false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && escaped(r) {
			return "", false
		}
	}
	body := strings.TrimRight(s, "\n")
	trailing := len(s) - len(body)
	var b strings.Builder
	b.WriteString(" |")
	if body[0] == ' ' || body[0] == '\t' || body[0] == '\n' {
		// The first line decides the block's indentation: say it.
		b.WriteString("2")
	}
	switch {
	case trailing == 0:
		b.WriteByte('-')
	case trailing > 1:
		b.WriteByte('+')
	}
	b.WriteByte('\n')
	pad := strings.Repeat(" ", indent)
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" {
			b.WriteString(pad)
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	for range trailing - 1 {
		b.WriteByte('\n')
	}
	return b.String(), true
}
