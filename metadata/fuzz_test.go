package metadata

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzParse: any bytes parse without a panic into a structure whose lines
// lie within the note, sections nest, tags and block ids are well formed,
// and a frontmatter that failed to parse gives no properties.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("---\na: [\n---\n# h\n#t `#c` ^id\n```\n# no\n```\n[[x#y|z]]"))
	f.Add([]byte("---\r\n---\r\n"))
	// Aliases expanding past the bound (frontmatter.go's maxValues).
	f.Add([]byte("---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := Parse(data)
		if n.Lines < 0 || n.BodyLine < 1 || n.BodyLine > n.Lines+2 {
			t.Fatalf("lines %d, body line %d", n.Lines, n.BodyLine)
		}
		last := n.Lines
		if last == 0 {
			last = 1
		}
		for i, h := range n.Headings {
			if h.Level < 1 || h.Level > 6 || h.Line < 1 || h.Line > last || h.EndLine < h.Line || h.EndLine > last {
				t.Fatalf("heading %+v out of range (%d lines)", h, n.Lines)
			}
			if i > 0 && h.Line <= n.Headings[i-1].Line {
				t.Fatalf("headings out of order: %+v", n.Headings)
			}
			if p := n.HeadingPath(i); !strings.HasSuffix(p, h.Text) {
				t.Fatalf("heading path %q does not end with %q", p, h.Text)
			}
		}
		for _, tg := range n.Tags {
			if tg.Name == "" || strings.ContainsFunc(tg.Name, unicode.IsSpace) || tg.Line < 0 || tg.Line > last {
				t.Fatalf("tag %+v", tg)
			}
		}
		for _, b := range n.Blocks {
			if b.ID == "" || strings.ContainsAny(b.ID, " ^\t") || b.Line < 1 || b.Line > last {
				t.Fatalf("block %+v", b)
			}
		}
		for _, l := range n.Links {
			if l.Line < 1 || l.Line > last {
				t.Fatalf("link %+v out of range", l)
			}
		}
		if n.FrontmatterError != "" && len(n.Properties) > 0 {
			t.Fatalf("properties %v from a frontmatter that failed: %s", n.Properties, n.FrontmatterError)
		}
		for i := range n.Headings {
			if got, _ := n.FindSection(n.HeadingPath(i)); got < 0 {
				// Several headings may share a path; then it is refused,
				// never resolved to the wrong one.
				continue
			} else if n.HeadingPath(got) != n.HeadingPath(i) {
				t.Fatalf("FindSection(%q) found %q", n.HeadingPath(i), n.HeadingPath(got))
			}
		}
	})
}
