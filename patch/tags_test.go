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
		want := "---\ntitle: x # kept\ntags: [proj, Home, new, alpha]\n---\n" + note[len("---\ntitle: x # kept\ntags: [proj, Home]\n---\n"):]
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
		want := "---\ntitle: x # kept\ntags: [Home]\n---\n# T\nAbout and #proj/alpha, #projection and `#proj` in code.\n```\n#proj\n```\nEnd\n"
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
		want := "---\ntitle: x # kept\ntags: [project, Home]\n---\n# T\nAbout #project and #project/alpha, #projection and `#proj` in code.\n```\n#proj\n```\nEnd #project\n"
		if err != nil || string(r.Content) != want || n != 4 {
			t.Errorf("got %q (%d) %v\nwant %q", r.Content, n, err, want)
		}
		r, n, _ = RenameTag([]byte("---\ntags: [a, b]\n---\n"), "a", "b")
		if string(r.Content) != "---\ntags: [b]\n---\n" || n != 1 {
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

// TestTagEditsKeepStyle: renaming, adding and removing tags changes the
// tags' own bytes only: the list keeps its style, quoting and comments (the
// property was once rewritten as a block list, dropping its comments).
func TestTagEditsKeepStyle(t *testing.T) {
	t.Parallel()
	type op func([]byte) ([]byte, error)
	renameProj := func(b []byte) ([]byte, error) { r, _, err := RenameTag(b, "proj", "project"); return r.Content, err }
	renameToB := func(b []byte) ([]byte, error) { r, _, err := RenameTag(b, "a", "b"); return r.Content, err }
	add := func(b []byte) ([]byte, error) { r, _, err := AddTags(b, []string{"new"}); return r.Content, err }
	remove := func(b []byte) ([]byte, error) { r, _, err := RemoveTags(b, []string{"proj"}); return r.Content, err }
	for _, tc := range []struct {
		name, in, want string
		op             op
	}{
		{"flow, comment", "---\ntags: [proj, home] # mine\n---\n", "---\ntags: [project, home] # mine\n---\n", renameProj},
		{"block, comments", "---\ntags: # list\n  - proj/alpha # first\n  - home\n# after\n---\n", "---\ntags: # list\n  - project/alpha # first\n  - home\n# after\n---\n", renameProj},
		{"block without indent", "---\ntags:\n- proj\n- home\n---\n", "---\ntags:\n- project\n- home\n---\n", renameProj},
		{"quoted", "---\ntags: ['proj', \"#proj/x\"]\n---\n", "---\ntags: ['project', \"#project/x\"]\n---\n", renameProj},
		{"string of tags", "---\ntags: proj home # c\n---\n", "---\ntags: project home # c\n---\n", renameProj},
		{"string with commas", "---\ntag: \"home, proj\"\n---\n", "---\ntag: \"home, project\"\n---\n", renameProj},
		{"CRLF block", "---\r\ntags:\r\n  - proj\r\n---\r\n", "---\r\ntags:\r\n  - project\r\n---\r\n", renameProj},
		{"merge in a flow list", "---\ntags: [a, x, b] # c\n---\n", "---\ntags: [b, x] # c\n---\n", renameToB},
		{"merge in a block list", "---\ntags:\n  - b\n  - a # gone\n  - x\n---\n", "---\ntags:\n  - b\n  - x\n---\n", renameToB},
		{"add to flow", "---\ntags: [a] # c\n---\n", "---\ntags: [a, new] # c\n---\n", add},
		{"add to empty flow", "---\ntags: [] # c\n---\n", "---\ntags: [new] # c\n---\n", add},
		{"add to block", "---\ntags:\n  - a # c\nnext: 1\n---\n", "---\ntags:\n  - a # c\n  - new\nnext: 1\n---\n", add},
		{"add to string", "---\ntags: a b\n---\n", "---\ntags: a b new\n---\n", add},
		{"remove middle of flow", "---\ntags: [a, proj, b] # c\n---\n", "---\ntags: [a, b] # c\n---\n", remove},
		{"remove last of flow", "---\ntags: [a, proj] # c\n---\n", "---\ntags: [a] # c\n---\n", remove},
		{"remove from block", "---\ntags:\n  - proj # c\n  - a\n---\n", "---\ntags:\n  - a\n---\n", remove},
		{"remove from string", "---\ntags: proj, a\n---\n", "---\ntags: a\n---\n", remove},
		{"remove the only tag", "---\ntitle: t\ntags: [proj]\n---\n", "---\ntitle: t\n---\n", remove},
		{"an escaped string is rewritten", "---\ntags: \"pro\\u006a\"\n---\n", "---\ntags:\n  - project\n---\n", renameProj},
	} {
		got, err := tc.op([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
}
