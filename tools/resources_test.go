package tools

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// manyNotes lists 250 notes.
type manyNotes struct{ fakeBackend }

func (m *manyNotes) List(_ context.Context, r note.ListRequest) (note.Listing, error) {
	if !r.Recursive || r.Ext != "md" {
		return note.Listing{}, fmt.Errorf("resources must list every note: %+v", r)
	}
	var all []note.Entry
	for i := range 250 {
		all = append(all, note.Entry{Path: fmt.Sprintf("F/n %03d.md", i), Type: "file", Size: int64(i)})
	}
	return note.Listing{Total: len(all), Entries: all[r.Offset:min(len(all), r.Offset+r.Limit)]}, nil
}

func TestNoteResources(t *testing.T) {
	t.Parallel()
	r := Resources(on(&manyNotes{}))
	var uris []string
	cursor, pages := "", 0
	for {
		list, next, err := r.List(t.Context(), cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, res := range list {
			uris = append(uris, res.URI)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if pages != 3 || len(uris) != 250 || uris[0] != "obsidian-mcp://note/F/n%20000.md" || uris[249] != "obsidian-mcp://note/F/n%20249.md" {
		t.Errorf("%d pages, %d notes, first %q, last %q", pages, len(uris), uris[0], uris[len(uris)-1])
	}
	if _, _, err := r.List(t.Context(), "bm90IG91cnM="); errors.From(err).Kind != errors.InvalidParams {
		t.Errorf("a foreign cursor: %v", err)
	}
	// Read goes through the template's handler, by exact path.
	fb := &fakeBackend{content: "# Hi"}
	rd := Resources(on(fb))
	req := mcp.ReadResourceRequest{}
	req.Params.URI = NoteURI("My Folder/a b.md")
	got, err := rd.Template.Handler(t.Context(), req)
	if err != nil || len(got) != 1 || got[0].(mcp.TextResourceContents).Text != "# Hi" || fb.calls[0] != "Read path=My Folder/a b.md name=" {
		t.Errorf("read: %+v %v %q", got, err, fb.calls)
	}
	for _, bad := range []string{"obsidian-mcp://note/../x.md", "file:///etc/passwd", "obsidian-mcp://note/%zz"} {
		req.Params.URI = bad
		if _, err := rd.Template.Handler(t.Context(), req); errors.From(err).Kind != errors.InvalidParams {
			t.Errorf("%s: %v, want INVALID_PARAMS", bad, err)
		}
	}
}
