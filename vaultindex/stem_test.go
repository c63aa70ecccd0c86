package vaultindex

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestSearchFindsOtherFormsOfAWord: a query word finds the notes that use
// another form of it, in both directions, in English and in Russian; a
// word that only begins like another ("plan", "plant") is not one of them
// for the snippet's marks.
func TestSearchFindsOtherFormsOfAWord(t *testing.T) {
	t.Parallel()
	ix := New(newMem(map[string]string{
		"Outline.md":   "Shows every heading of the note.\n",
		"Formats.md":   "# Accepted file formats\nMarkdown and PDF.\n",
		"Mood.md":      "A note on happiness.\n",
		"Books.md":     "Список: книга о садах.\n",
		"Running.md":   "She runs every morning.\n",
		"Garden.md":    "A plant in the garden.\n",
		"Elsewhere.md": "Nothing of the kind.\n",
	}))
	cases := []struct{ query, want string }{
		{"headings", "Outline.md"},
		{"heading", "Outline.md"},
		{"format", "Formats.md"},
		{"happy", "Mood.md"},
		{"книги", "Books.md"},
		{"running", "Running.md"},
	}
	for _, c := range cases {
		res, err := ix.Search(context.Background(), note.SearchRequest{Query: c.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(res); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%q: got %q, want [%s]", c.query, got, c.want)
		}
	}
	res, err := ix.Search(context.Background(), note.SearchRequest{Query: "plan", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Path != "Garden.md" {
		t.Fatalf("plan: %+v; want Garden.md, by its prefix", res.Hits)
	}
	for _, s := range res.Hits[0].Snippets {
		if strings.Contains(s.Text, "<mark>") {
			t.Errorf("plan: snippet %q marks a word that only begins like it", s.Text)
		}
	}
}

// TestStem: the stems the vocabulary scan relies on.
func TestStem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"headings", "head", true},
		{"happiness", "happi", true},
		{"книги", "книг", true},
		{"as", "", false},         // too short
		{"日本語", "", false},        // no stemmer for the script
		{"παράδειγμα", "", false}, // nor for Greek
	} {
		got, ok := stem(c.word)
		if got != c.want || ok != c.ok {
			t.Errorf("stem(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
	if p := stemPrefix("happi"); p != "happ" {
		t.Errorf("stemPrefix(happi) = %q", p)
	}
	if p := commonPrefix("книги", "книгх"); p != "книг" {
		t.Errorf("commonPrefix = %q, want whole runes", p)
	}
}

// TestSnippetsByRank: the first fullSnippets hits show up to maxSnippets
// lines each, the hits below them one, on every page.
func TestSnippetsByRank(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("N%d.md", i)] = strings.Repeat("the kiwi grows here\nfiller\n", 3+i)
	}
	ix := New(newMem(files))
	for _, offset := range []int{0, 2} {
		res, err := ix.Search(context.Background(), note.SearchRequest{Query: "kiwi", Offset: offset, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range res.Hits {
			want := maxSnippets
			if offset+i >= fullSnippets {
				want = 1
			}
			if len(h.Snippets) != want {
				t.Errorf("offset %d, hit %d (%s): %d snippets, want %d", offset, i, h.Path, len(h.Snippets), want)
			}
		}
	}
}
