package patch

import (
	"slices"
	"testing"
)

func TestTags(t *testing.T) {
	t.Parallel()
	const note = "---\ntitle: x # kept\ntags: [proj, Home]\n---\n# T\nAbout #proj and #proj/alpha, #projection and `#proj` in code.\n```\n#proj\n```\nEnd #proj\n"
	t.Run("add", func(t *testing.T) {
		r, added, err := AddTags([]byte(note), []string{"new", "PROJ", "alpha", "new"})
		want := "---\ntitle: x # kept\ntags:\n  - proj\n  - Home\n  - new\n  - alpha\n---\n" + note[len("---\ntitle: x # kept\ntags: [proj, Home]\n---\n"):]
		if err != nil || string(r.Content) != want || !slices.Equal(added, []string{"new", "alpha"}) {
			t.Errorf("got %q %v %v", r.Content, added, err)
		}
		r, added, err = AddTags([]byte("body #x\n"), []string{"x", "y"})
		if err != nil || string(r.Content) != "---\ntags:\n  - y\n---\nbody #x\n" || !slices.Equal(added, []string{"y"}) {
			t.Errorf("no frontmatter: %q %v %v", r.Content, added, err)
		}
		r, added, _ = AddTags([]byte(note), []string{"home"})
		if string(r.Content) != note || len(added) != 0 {
			t.Errorf("a tag the note has changed it: %q", r.Content)
		}
	})
	t.Run("remove", func(t *testing.T) {
		r, n, err := RemoveTags([]byte(note), []string{"PROJ"})
		want := "---\ntitle: x # kept\ntags:\n  - Home\n---\n# T\nAbout and #proj/alpha, #projection and `#proj` in code.\n```\n#proj\n```\nEnd\n"
		if err != nil || string(r.Content) != want || n != 3 {
			t.Errorf("got %q (%d) %v\nwant %q", r.Content, n, err, want)
		}
		r, n, _ = RemoveTags([]byte("\ufeff---\ntags: [a]\n---\n#a first\r\n"), []string{"a"})
		if string(r.Content) != "\ufefffirst\r\n" || n != 2 {
			t.Errorf("last tag: %q (%d)", r.Content, n)
		}
	})
	t.Run("rename", func(t *testing.T) {
		r, n, err := RenameTag([]byte(note), "proj", "project")
		want := "---\ntitle: x # kept\ntags:\n  - project\n  - Home\n---\n# T\nAbout #project and #project/alpha, #projection and `#proj` in code.\n```\n#proj\n```\nEnd #project\n"
		if err != nil || string(r.Content) != want || n != 4 {
			t.Errorf("got %q (%d) %v\nwant %q", r.Content, n, err, want)
		}
		r, n, _ = RenameTag([]byte("---\ntags: [a, b]\n---\n"), "a", "b")
		if string(r.Content) != "---\ntags:\n  - b\n---\n" || n != 1 {
			t.Errorf("merge: %q (%d)", r.Content, n)
		}
		r, n, _ = RenameTag([]byte(note), "nope", "x")
		if string(r.Content) != note || n != 0 {
			t.Errorf("no use changed the note: %q", r.Content)
		}
	})
	for _, bad := range []string{"", "#", "12", "a b", "/a", "a,b"} {
		if _, err := CleanTag("tag", bad); err == nil {
			t.Errorf("CleanTag(%q) accepted", bad)
		}
	}
	if name, err := CleanTag("tag", "#Area/home"); err != nil || name != "Area/home" {
		t.Errorf("CleanTag = %q, %v", name, err)
	}
}
