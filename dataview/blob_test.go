package dataview

import (
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPageRoundTrip: every note of the replay vaults, and a few written
// to reach every kind of value and zone, reads back from its compact
// form as it was parsed.
func TestPageRoundTrip(t *testing.T) {
	g := newGrammar(time.UTC, func() time.Time { return fixedNow })
	texts := map[string]string{
		"zones.md": "a:: 2026-01-02T03:04:05+05:30\nb:: 2026-01-02T03:04Z\nc:: 2026-01-02T03:04[Europe/Paris]\nd:: 2026-01-02\n" +
			"e:: 3 hours, 2 minutes\nf:: -0.5\ng:: 1e3\nh:: [[X#^b|shown]], ![[Y#Head]]\ni:: \"q\"\nj:: true\nk::\n",
		"fm.md": "---\nobj: {a: 1, b: [x, {c: null}], '2': two, '1': one}\nn: 123456789012\nf: 1.25\n---\n- [/] t (x:: 1) ✅ 2026-01-01\n    - [x] u\n",
	}
	for _, vault := range []string{"notes", "dataview-test-vault"} {
		fsys := os.DirFS("testdata/replay/" + vault)
		if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				b, _ := fs.ReadFile(fsys, p)
				texts[vault+"/"+p] = string(b)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Without a dictionary, and with one that fills up on the way.
	full := newDict()
	for i := range maxWords - 40 {
		full.id(fmt.Sprint(i))
	}
	for _, words := range []*dict{nil, full} {
		for p, text := range texts {
			m := g.parsePage(p, text, FileStat{Ctime: fixedCtime, Mtime: fixedMtime, Size: int64(len(text))})
			back := (&Page{Path: m.Path, blob: encodePage(m, g.loc, words), dict: words}).meta(g.loc, map[string]string{})
			if !reflect.DeepEqual(dumpMeta(m), dumpMeta(back)) {
				t.Errorf("%s:\nparsed  %s\ndecoded %s", p, dumpMeta(m), dumpMeta(back))
			}
		}
	}
	if n := len(full.ids); n != maxWords {
		t.Errorf("the dictionary holds %d words, want it full (%d)", n, maxWords)
	}
}

// dumpMeta is a page's metadata as text, dates with their zones.
func dumpMeta(m *PageMeta) string {
	var b strings.Builder
	show := func(v any) {
		b.WriteString(toText(v, true))
		if t, ok := v.(time.Time); ok {
			b.WriteString("@" + zoneID(t.Location()) + isoDate(t))
		}
		if d, ok := v.(Duration); ok {
			b.WriteString("#" + d.ISO())
		}
		b.WriteString("|")
	}
	show(m.Path)
	show(m.Ctime)
	show(m.Mtime)
	show(float64(m.Size))
	if m.day != nil {
		show(*m.day)
	}
	show(linksAnyOf(m.Links()))
	show(float64(m.nFM))
	show(stringsAny(m.Tags()))
	show(stringsAny(m.aliases))
	for i, k := range m.fields {
		show(k)
		show(m.fieldValue(i))
	}
	show(m.Frontmatter())
	for _, it := range m.Lists() {
		show(it.symbol)
		show(it.link)
		show(it.section)
		show(it.text)
		show(stringsAny(it.tags))
		b.WriteString(strings.Trim(strings.Join(strings.Fields(strings.Trim(toText([]any{float64(it.line), float64(it.lineCount), float64(it.list), float64(it.parent), float64(it.pos.startLine), float64(it.pos.startCol), float64(it.pos.endLine), float64(it.pos.endCol)}, true), "[]")), " "), " "))
		show(linksAnyOf(it.links))
		for _, c := range it.children {
			show(float64(c))
		}
		show(it.blockID)
		if it.fields != nil {
			for i, k := range it.fields.keys {
				show(k)
				show(it.fields.vals[i])
			}
		}
		if it.task != nil {
			show(it.task.status)
			show([]any{it.task.checked, it.task.completed, it.task.fullyCompleted})
		}
	}
	return b.String()
}

func linksAnyOf(ls []*Link) []any {
	out := make([]any, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}
