package links

import (
	"net/url"
	"strings"
	"unicode"
)

// Heading is one heading of a note, as its outline lists it.
type Heading struct {
	Level int
	Text  string
}

// HeadingRename rewrites the links to one heading of a note when the
// heading's text changes: [[Note#Old]], [[Note#Old|alias]], ![[Note#Old]],
// [[Note#Parent#Old]], [text](Note.md#Old) and, in the note itself,
// [[#Old]] and [text](#Old). A link is taken to mean the heading Obsidian
// opens for it: the first heading of the note (in the outline before the
// rename) whose text matches the subpath's last part and which lies under
// headings matching the parts before it, in order. Texts match as Obsidian
// and Dataview compare them: case aside, and any run of characters other
// than letters and digits counted as one space.
type HeadingRename struct {
	// Target is the note's path; Outline its headings before the rename,
	// Index the one renamed and New its new text.
	Target  string
	Outline []Heading
	Index   int
	New     string
	// Files resolves a link's path from the note it is in.
	Files *Index
}

// Rewrite returns text, the content of the note at source, with every link
// to the renamed heading (or through it, to a heading under it) naming it
// by its new text, and how many links it rewrote. Everything else of a
// link is kept: its path, the other parts of its subpath, alias, embed
// mark. text is returned unchanged when n is 0.
func (h *HeadingRename) Rewrite(text []byte, source string) (out []byte, n int) {
	last := 0
	for _, l := range ScanAll(text) {
		if l.SubEnd <= l.SubStart {
			continue
		}
		target := source
		if l.Path != "" {
			target = h.Files.Resolve(l.Path, source)
		}
		if target != h.Target {
			continue
		}
		// The parts as written, to keep those not renamed byte for byte,
		// and as Obsidian reads them, to match.
		raw := strings.Split(string(text[l.SubStart:l.SubEnd]), "#")
		parts := subpathParts(text, l)
		if strings.HasPrefix(parts[0], "^") {
			continue // a block, not a heading
		}
		at := resolveChain(h.Outline, parts)
		changed := false
		for i, m := range at {
			if m == h.Index {
				raw[i] = h.written(l)
				changed = true
			}
		}
		if !changed {
			continue
		}
		sub := strings.Join(raw, "#")
		if sub == string(text[l.SubStart:l.SubEnd]) {
			continue // a rename that changes nothing a link says (case aside)
		}
		out = append(append(out, text[last:l.SubStart]...), sub...)
		last = l.SubEnd
		n++
	}
	if n == 0 {
		return text, 0
	}
	return append(out, text[last:]...), n
}

// written is the new text as l writes a subpath: in a wikilink without the
// characters that would end or split it, in a Markdown link encoded.
func (h *HeadingRename) written(l Link) string {
	if l.Markdown {
		if l.Angle {
			return strings.NewReplacer("#", " ", ">", " ").Replace(h.New)
		}
		return Encode(h.New)
	}
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if strings.ContainsRune("#|^[]", r) {
			return ' '
		}
		return r
	}, h.New)), " ")
}

// resolveChain is, for each part of a heading subpath, the index in
// outline of the heading it names (all -1 when the subpath names none):
// the first heading matching the last part that lies under headings
// matching the others, in order, each the nearest such above.
func resolveChain(outline []Heading, parts []string) []int {
	keys := make([]string, len(parts))
	for i, p := range parts {
		keys[i] = HeadingKey(p)
	}
	at := make([]int, len(parts))
	for i, h := range outline {
		if HeadingKey(h.Text) != keys[len(keys)-1] {
			continue
		}
		at[len(at)-1] = i
		k := len(keys) - 2
		level := h.Level
		for j := i - 1; j >= 0 && k >= 0; j-- {
			if outline[j].Level >= level {
				continue
			}
			level = outline[j].Level
			if HeadingKey(outline[j].Text) == keys[k] {
				at[k] = j
				k--
			}
		}
		if k < 0 {
			return at
		}
	}
	for i := range at {
		at[i] = -1
	}
	return at
}

// HeadingKey is a heading's text as links are matched to it: lower-cased,
// every run of characters other than letters and digits one space, trimmed.
func HeadingKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

// subpathParts are the parts of l's subpath in text, decoded as Obsidian
// reads them.
func subpathParts(text []byte, l Link) []string {
	parts := strings.Split(string(text[l.SubStart:l.SubEnd]), "#")
	if l.Markdown && !l.Angle {
		for i, p := range parts {
			if d, err := url.PathUnescape(p); err == nil {
				parts[i] = d
			}
		}
	}
	return parts
}

// Leads reports whether l, a link of text with a subpath, names a heading
// of outline (a block link is taken to lead: it names no heading).
func Leads(text []byte, l Link, outline []Heading) bool {
	parts := subpathParts(text, l)
	if strings.HasPrefix(parts[0], "^") {
		return true
	}
	return resolveChain(outline, parts)[len(parts)-1] >= 0
}

// LastHeadingKey is the HeadingKey of the heading l's subpath names last.
func LastHeadingKey(text []byte, l Link) string {
	parts := subpathParts(text, l)
	return HeadingKey(parts[len(parts)-1])
}
