package patch

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// FuzzApply: on any note, any patch either fails, changing nothing, or
// changes only the bytes it reports: outside [Start, End) the note is
// byte for byte what it was, so an insertion undone by cutting that range
// gives the original back.
func FuzzApply(f *testing.F) {
	f.Add([]byte(plan), uint8(1), uint8(3), "- drought", false)
	f.Add([]byte("# A\r\none\r\n# B\r\n"), uint8(0), uint8(4), "x\ny", false)
	f.Add([]byte("a ^x\nb\n\n- c ^y"), uint8(200), uint8(2), "z", false)
	f.Add([]byte("# T\n## One\nx"), uint8(9), uint8(3), "y", true)
	ops := []string{Before, After, Prepend, Append, Replace}
	f.Fuzz(func(t *testing.T, content []byte, which, op uint8, text string, create bool) {
		n := metadata.Parse(content)
		var target Target
		switch {
		case which >= 200 && len(n.Blocks) > 0:
			target.Block = n.Blocks[int(which-200)%len(n.Blocks)].ID
		case len(n.Headings) > 0 && which < 100:
			target.Heading = n.HeadingPath(int(which) % len(n.Headings))
		default:
			target.Heading = "New > Section"
		}
		orig := bytes.Clone(content)
		r, err := Apply(content, target, ops[int(op)%len(ops)], text, create)
		if !bytes.Equal(content, orig) {
			t.Fatal("Apply modified its input")
		}
		if err != nil {
			return
		}
		out := r.Content
		if r.Start < 0 || r.Start > r.End || r.End > len(out) || r.Start > len(orig) {
			t.Fatalf("range [%d,%d) of %d bytes (original %d)", r.Start, r.End, len(out), len(orig))
		}
		tail := len(out) - r.End
		if tail > len(orig)-r.Start || !bytes.Equal(out[:r.Start], orig[:r.Start]) || !bytes.Equal(out[r.End:], orig[len(orig)-tail:]) {
			t.Fatalf("bytes outside [%d,%d) changed:\n orig %q\n  out %q", r.Start, r.End, orig, out)
		}
		if ops[int(op)%len(ops)] != Replace {
			undone := append(bytes.Clone(out[:r.Start]), out[r.End:]...)
			if !bytes.Equal(undone, orig) {
				t.Fatalf("cutting the insertion does not give the original:\n orig %q\n undo %q", orig, undone)
			}
		}
	})
}

// FuzzProperty: setting a property changes only the lines it reports, the
// note reads back with the value's type, and setting a new key then
// removing it gives the note back byte for byte.
func FuzzProperty(f *testing.F) {
	f.Add([]byte(fm), "status", "done", uint8(0))
	f.Add([]byte("---\r\na: 1\r\n---\r\nx"), "b", "2", uint8(1))
	f.Add([]byte("# no frontmatter"), "tags", "x", uint8(4))
	f.Add([]byte("---\nk: |\n  multi\n  line\n# c\n---\n"), "k", "true", uint8(2))
	types := []string{Text, Number, Checkbox, Date, List}
	f.Fuzz(func(t *testing.T, content []byte, key, value string, which uint8) {
		typ := types[int(which)%len(types)]
		var v any = value
		if typ == List {
			v = []string{value, "second"}
		}
		existed := propertyOf(content, key) != nil
		orig := bytes.Clone(content)
		r, err := SetProperty(content, key, typ, v)
		if !bytes.Equal(content, orig) {
			t.Fatal("SetProperty modified its input")
		}
		if err != nil {
			return
		}
		tail := len(r.Content) - r.End
		if r.Start > len(orig) || tail > len(orig)-r.Start || !bytes.Equal(r.Content[:r.Start], orig[:r.Start]) || !bytes.Equal(r.Content[r.End:], orig[len(orig)-tail:]) {
			t.Fatalf("bytes outside [%d,%d) changed:\n orig %q\n  out %q", r.Start, r.End, orig, r.Content)
		}
		if p := propertyOf(r.Content, key); p == nil || p.Type != typ {
			t.Fatalf("%q does not read back as %s: %+v in %q", key, typ, p, r.Content)
		}
		// The inverse holds for a new key in valid frontmatter, or in a note
		// that had none (the removed last key takes the block with it); an
		// empty frontmatter block would go with it too.
		fmEnd := note.FrontmatterEnd(orig)
		if existed || metadata.Parse(orig).FrontmatterError != "" || fmEnd > 0 && len(metadata.Parse(orig).Properties) == 0 {
			return
		}
		back, removed, err := RemoveProperty(r.Content, key)
		if err != nil || !removed || !bytes.Equal(back.Content, orig) {
			t.Fatalf("set then remove a new key:\n orig %q\n  set %q\n back %q (%v)", orig, r.Content, back.Content, err)
		}
	})
}

// FuzzTags: renaming, adding and removing tags leaves the frontmatter's
// tags exactly as asked (renamed in place, merged, added, removed), whatever
// way the property is written, and changes no other property.
func FuzzTags(f *testing.F) {
	f.Add([]byte("---\ntags: [a, b/c] # x\n---\n#a\n"), "a", "z")
	f.Add([]byte("---\ntags:\n  - a\n  - 'b'\n---\n"), "b", "a")
	f.Add([]byte("---\ntag: a, b\n---\n"), "a", "a/b")
	f.Add([]byte("---\ntags: \"#a\"\ntitle: t\n---\n"), "a", "q")
	f.Fuzz(func(t *testing.T, content []byte, from, to string) {
		if checkTagForFuzz(from) != nil || checkTagForFuzz(to) != nil {
			return
		}
		before := metadata.Parse(content)
		if before.FrontmatterError != "" {
			return
		}
		_, tags := frontmatterTags(before)
		others := func(n *metadata.Note) []metadata.Property {
			var ps []metadata.Property
			for _, p := range n.Properties {
				if k := strings.ToLower(p.Key); k != "tags" && k != "tag" {
					ps = append(ps, p)
				}
			}
			return ps
		}
		check := func(op string, out []byte, want []string) {
			t.Helper()
			after := metadata.Parse(out)
			if _, got := frontmatterTags(after); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("%s: tags %q, want %q\n in %q\nout %q", op, got, want, content, out)
			}
			if !reflect.DeepEqual(others(before), others(after)) {
				t.Fatalf("%s changed another property:\n in %q\nout %q", op, content, out)
			}
		}
		r, _, err := RenameTag(content, from, to)
		if err == nil {
			var want []string
			seen := map[string]bool{}
			renamed := false
			for _, tg := range tags {
				switch {
				case strings.EqualFold(tg, from):
					tg, renamed = to, true
				case len(tg) > len(from) && tg[len(from)] == '/' && strings.EqualFold(tg[:len(from)], from):
					tg, renamed = to+tg[len(from):], true
				}
				if !seen[strings.ToLower(tg)] {
					seen[strings.ToLower(tg)] = true
					want = append(want, tg)
				}
			}
			if !renamed {
				// Nothing to rename: the property is left as written,
				// a tag written twice included.
				want = tags
			}
			check("rename", r.Content, want)
		}
		if r, added, err := AddTags(content, []string{to}); err == nil {
			check("add", r.Content, append(slices.Clone(tags), added...))
		}
		if r, _, err := RemoveTags(content, []string{from}); err == nil {
			var want []string
			for _, tg := range tags {
				if !strings.EqualFold(tg, from) {
					want = append(want, tg)
				}
			}
			check("remove", r.Content, want)
		}
	})
}

// checkTagForFuzz is CleanTag's check for a tag name as the tools pass it.
func checkTagForFuzz(tag string) error {
	name, err := CleanTag("tag", tag)
	if err == nil && name != tag {
		return fmt.Errorf("%q is not written clean", tag)
	}
	return err
}
