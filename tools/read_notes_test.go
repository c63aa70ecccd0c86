package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// someMissing reads every note as its own path, fails for names starting
// with "missing" or "dup", and makes notes named big* 60 KB.
type someMissing struct{ fakeBackend }

func (b *someMissing) Read(ctx context.Context, l note.Locator) (note.Content, error) {
	_, _ = b.fakeBackend.Read(ctx, l)
	s := l.String()
	switch {
	case strings.HasPrefix(s, "missing"):
		return note.Content{}, errors.E(errors.FileNotFound, "note not found: %s", s)
	case strings.HasPrefix(s, "dup"):
		e := errors.E(errors.AmbiguousName, "the name %q matches 2 notes", s)
		e.Candidates = []string{"a/dup.md", "b/dup.md"}
		return note.Content{}, e
	case strings.HasPrefix(s, "big"):
		return note.Content{Path: s + ".md", Content: strings.Repeat("b", 60_000)}, nil
	}
	return note.Content{Path: resolved(l), Content: "text of " + s}, nil
}

func TestReadNotes(t *testing.T) {
	t.Parallel()
	st := findTool(t, "obsidian_read_notes", &someMissing{})
	res, err := call(t, st, `{"paths":["a.md","missing.md"],"names":["dup","c","big1","big2","d"]}`)
	if err != nil {
		t.Fatal(err)
	}
	got := res.StructuredContent.(Envelope[readNotesResult]).Data.Notes
	want := []struct{ requested, path, content, code string }{
		{"a.md", "a.md", "text of a.md", ""},
		{"missing.md", "", "", "FILE_NOT_FOUND"},
		{"dup", "", "", "AMBIGUOUS_NAME"},
		{"c", "Resolved/c.md", "text of c", ""},
		{"big1", "big1.md", strings.Repeat("b", 60_000), ""},
		{"big2", "big2.md", "", "TOO_LARGE"}, // 120 KB would pass the budget
		{"d", "Resolved/d.md", "text of d", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Requested != w.requested || g.Path != w.path || g.Content != w.content || g.Error.Code != w.code {
			t.Errorf("item %d = %+v, want %+v", i, g, w)
		}
		if (g.ETag != "") != (w.code == "") || g.ETag != "" && g.ETag != note.ETag([]byte(g.Content)) {
			t.Errorf("item %d: etag %q for content %.20q", i, g.ETag, g.Content)
		}
	}
	if c := got[2].Error.Candidates; len(c) != 2 {
		t.Errorf("ambiguous item lost its candidates: %+v", got[2])
	}
	cases := []toolCase{
		{name: "nothing asked", args: `{}`, wantKind: errors.InvalidParams, wantFields: []string{"paths"}},
		{name: "too many", args: `{"paths":["1.md","2.md","3.md","4.md","5.md","6.md","7.md","8.md","9.md","10.md","11.md"],"names":["1","2","3","4","5","6","7","8","9","10"]}`,
			wantKind: errors.InvalidParams, wantFields: []string{"paths"}},
		{name: "unsafe path", args: `{"paths":["ok.md","../x.md"]}`, wantKind: errors.InvalidParams, wantFields: []string{"paths[1]"}},
		{name: "over 20 in one list", args: `{"names":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21"]}`,
			wantKind: errors.InvalidParams, wantFields: []string{"names"}},
	}
	runCases(t, "obsidian_read_notes", cases)
}
