package links

import (
	"strings"
)

// Move describes files changing paths, for rewriting the links that point
// at them.
type Move struct {
	// Before and After index the vault's files before and after the move.
	Before, After *Index
	// Moved maps each moved file's old path to its new one.
	Moved map[string]string
	// Format is the vault's link format, used for every rewritten link.
	Format Format
}

// Retarget returns text, the content of the note at source (newSource
// after the move), with every link rewritten that pointed at a file before
// the move and would point elsewhere, or nowhere, after it. Links that
// resolved to nothing stay as they are, and so does everything but a
// rewritten link's path: its subpath, alias, embed mark and link style.
// n counts the rewritten links; text is returned unchanged when n is 0.
func (m *Move) Retarget(text []byte, source, newSource string) (out []byte, n int) {
	last := 0
	for _, l := range Scan(text) {
		t := m.Before.Resolve(l.Path, source)
		if t == "" {
			continue
		}
		want := t
		to, moved := m.Moved[t]
		if moved {
			want = to
		}
		// A link that still reaches its file is left as written, unless
		// the file's name changed only in case: names are matched without
		// case, so [[Note]] still reaches note.md, but the person renamed
		// it to be spelled so.
		if m.After.Resolve(l.Path, newSource) == want && !(moved && t != to && strings.EqualFold(t, to)) {
			continue
		}
		p := m.After.Text(want, newSource, m.Format, l.Markdown)
		if !l.Markdown && strings.HasSuffix(strings.ToLower(l.Path), mdExt) && strings.HasSuffix(want, mdExt) {
			p += mdExt // keep the extension the author wrote
		}
		if l.Markdown && !l.Angle {
			p = Encode(p)
		}
		out = append(append(out, text[last:l.Start]...), p...)
		last = l.End
		n++
	}
	if n == 0 {
		return text, 0
	}
	return append(out, text[last:]...), n
}

// Encode percent-encodes a path for a Markdown link destination: spaces
// and the characters that would end or split the destination. Other
// characters, non-ASCII letters included, stay readable; Obsidian decodes
// both forms.
func Encode(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c <= ' ' || c == 0x7f || strings.IndexByte(`%()<>#^|[]\`, c) >= 0:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
