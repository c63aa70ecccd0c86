package vaultindex

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// TestLinkText: a note is found by the words of the lines that link to it
// (not by the link's own path), below the notes that say them, and this
// follows the vault as it changes: a line edited, a link removed, a link
// to a note that does not exist yet, its note created, the linking note
// deleted; a snapshot keeps the words.
func TestLinkText(t *testing.T) {
	t.Parallel()
	src := newMem(map[string]string{
		"Bookmarks.md": "# Bookmarks\nKeep notes at hand.\n",
		"Tips.md":      "Pin your favourite notes with [[Bookmarks]].\nNothing here links.\n",
		"Other.md":     "A favourite recipe.\n",
		"Nav.md":       "- [[Projects/Roadmap]]\n",
	})
	ix := New(src)
	find := func(q string) []string {
		t.Helper()
		res, err := ix.Search(context.Background(), searchReq(q))
		if err != nil {
			t.Fatal(err)
		}
		return paths(res)
	}
	matched := func(q, p string) []string {
		res, _ := ix.Search(context.Background(), searchReq(q))
		for _, h := range res.Hits {
			if h.Path == p {
				return h.Matched
			}
		}
		return nil
	}
	if got := find("favourite"); !slices.Equal(got, []string{"Other.md", "Tips.md", "Bookmarks.md"}) && !slices.Equal(got, []string{"Tips.md", "Other.md", "Bookmarks.md"}) {
		t.Errorf("favourite: %q, want Bookmarks last, by its link's line", got)
	}
	if got := matched("favourite", "Bookmarks.md"); !reflect.DeepEqual(got, []string{"link"}) {
		t.Errorf("Bookmarks matched in %v", got)
	}
	if got := find("roadmap"); !slices.Equal(got, []string{"Nav.md"}) {
		t.Errorf("a link's own path is not its text: %q", got)
	}
	// The line changes: the note follows.
	src.write("Tips.md", "Pin your preferred notes with [[Bookmarks]].\n")
	if got := find("favourite"); !slices.Equal(got, []string{"Other.md"}) {
		t.Errorf("after the line changed: %q", got)
	}
	if got := find("preferred"); !slices.Contains(got, "Bookmarks.md") {
		t.Errorf("preferred: %q", got)
	}
	// A link to a note not there yet counts once the note is.
	src.write("Tips.md", "Pin your preferred notes with [[Bookmarks]]; plan with [[Roadmap]].\n")
	if got := find("plan"); slices.Contains(got, "Roadmap.md") {
		t.Errorf("plan: %q before Roadmap exists", got)
	}
	src.write("Roadmap.md", "# Roadmap\n")
	if got := find("plan"); !slices.Contains(got, "Roadmap.md") {
		t.Errorf("plan: %q, want Roadmap once it exists", got)
	}
	// A snapshot keeps the words: a start from it answers as a fresh build.
	st := newStore()
	ix = New(src, WithStore(st, "vault"))
	if got := find("preferred"); !slices.Contains(got, "Bookmarks.md") {
		t.Errorf("preferred, before the snapshot: %q", got)
	}
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	loaded := New(src, WithStore(st, "vault"))
	ix = loaded
	if got := find("preferred"); !slices.Contains(got, "Bookmarks.md") {
		t.Errorf("preferred, from the snapshot: %q", got)
	}
	if !reflect.DeepEqual(answers(t, loaded, src), answers(t, New(src), src)) {
		t.Error("a start from a snapshot answers otherwise than a fresh build")
	}
	// The linking note goes: so does what it said.
	src.remove("Tips.md")
	if got := find("preferred"); len(got) != 0 {
		t.Errorf("after the linking note was deleted: %q", got)
	}
}
