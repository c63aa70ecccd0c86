package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func TestSearchNotes(t *testing.T) {
	t.Parallel()
	hit := func(i int, q string) string {
		return `{"path":"hit` + string(rune('0'+i)) + `.md","score":` + string(rune('3'-i)) + `,"matched_in":["body"],"snippets":[{"line":1,"text":"a <mark>` + q + `</mark>"}]}`
	}
	page2 := nextCursor(key("search", "garden", "text", ""), 2)
	cases := []toolCase{
		{name: "defaults", args: `{"query":"garden"}`, wantCall: "Search {Query:garden Mode:text Folder: Offset:0 Limit:10}",
			wantData: `{"success":true,"data":{"total":3,"results":[` + hit(0, "garden") + `,` + hit(1, "garden") + `,` + hit(2, "garden") + `]}}`},
		{name: "first page", args: `{"query":"garden","limit":2}`, wantCall: "Search {Query:garden Mode:text Folder: Offset:0 Limit:2}",
			wantData: `{"success":true,"data":{"total":3,"results":[` + hit(0, "garden") + `,` + hit(1, "garden") + `],"next_cursor":"` + page2 + `"}}`},
		{name: "next page", args: `{"query":"garden","limit":2,"cursor":"` + page2 + `"}`, wantCall: "Search {Query:garden Mode:text Folder: Offset:2 Limit:2}",
			wantData: `{"success":true,"data":{"total":3,"results":[` + hit(2, "garden") + `]}}`},
		{name: "cursor of another query", args: `{"query":"frost","cursor":"` + page2 + `"}`, wantKind: errors.InvalidParams, wantFields: []string{"cursor"}},
		{name: "garbage cursor", args: `{"query":"frost","cursor":"!!"}`, wantKind: errors.InvalidParams, wantFields: []string{"cursor"}},
		{name: "regex in a folder", args: `{"query":"fro+st","mode":"regex","folder":"Projects/"}`, wantCall: "Search {Query:fro+st Mode:regex Folder:Projects/ Offset:0 Limit:10}",
			wantData: `{"success":true,"data":{"total":3,"results":[` + hit(0, "fro+st") + `,` + hit(1, "fro+st") + `,` + hit(2, "fro+st") + `]}}`},
		{name: "no query", args: `{}`, wantKind: errors.InvalidParams, wantFields: []string{"query"}},
		{name: "bad mode", args: `{"query":"x","mode":"fuzzy"}`, wantKind: errors.InvalidParams, wantFields: []string{"mode"}},
		{name: "limit too high", args: `{"query":"x","limit":101}`, wantKind: errors.InvalidParams, wantFields: []string{"limit"}},
		{name: "limit zero means default", args: `{"query":"x","limit":0}`, wantCall: "Search {Query:x Mode:text Folder: Offset:0 Limit:10}",
			wantData: `{"success":true,"data":{"total":3,"results":[` + hit(0, "x") + `,` + hit(1, "x") + `,` + hit(2, "x") + `]}}`},
		{name: "folder escaping", args: `{"query":"x","folder":"../up"}`, wantKind: errors.InvalidParams, wantFields: []string{"folder"}},
		{name: "backend error", args: `{"query":"x"}`, err: errors.E(errors.Timeout, "slow"), wantCall: "Search {Query:x Mode:text Folder: Offset:0 Limit:10}", wantKind: errors.Timeout},
	}
	runCases(t, "obsidian_search_notes", cases)
}

// longHits answers every search with 100 hits of 2 KB snippets.
type longHits struct{ fakeBackend }

func (b *longHits) Search(_ context.Context, r note.SearchRequest) (note.SearchResult, error) {
	res := note.SearchResult{Total: 100}
	for i := r.Offset; i < min(100, r.Offset+r.Limit); i++ {
		res.Hits = append(res.Hits, note.Hit{Path: fmt.Sprintf("n%03d.md", i), Snippets: []note.Snippet{{Line: 1, Text: strings.Repeat("y", 2000)}}})
	}
	return res, nil
}

// TestSearchBounded: a page whose snippets would pass the budget is cut,
// says so, and its cursor continues right after the last hit shown.
func TestSearchBounded(t *testing.T) {
	t.Parallel()
	st := findTool(t, "obsidian_search_notes", &longHits{})
	res, err := call(t, st, `{"query":"y","limit":100}`)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	page := res.StructuredContent.(Envelope[note.SearchResult]).Data
	if len(text) > maxAnswer+4000 || !page.Truncated || page.NextCursor == "" || len(page.Hits) == 0 {
		t.Fatalf("%d bytes, truncated=%v, %d hits, cursor %q", len(text), page.Truncated, len(page.Hits), page.NextCursor)
	}
	next, err := call(t, st, `{"query":"y","limit":100,"cursor":"`+page.NextCursor+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	first := next.StructuredContent.(Envelope[note.SearchResult]).Data.Hits[0].Path
	if want := fmt.Sprintf("n%03d.md", len(page.Hits)); first != want {
		t.Errorf("the next page starts at %s, want %s", first, want)
	}
	one := []note.Hit{{Path: "huge.md", Snippets: []note.Snippet{{Text: strings.Repeat("z", 2*maxAnswer)}}}}
	if fit(one) != 1 {
		t.Error("a single item over the budget must still be returned, or paging would never advance")
	}
}
