package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestGetLinks(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "resolved and not", args: `{"name":"A"}`, wantCall: "Links path= name=A",
			wantData: `{"success":true,"data":{"path":"Resolved/A.md","links":[{"target":"B","path":"B.md","resolved":true,"line":2},{"target":"Nowhere","resolved":false,"line":3}]}}`},
	}
	runCases(t, "obsidian_get_links", append(cases, withCall(locatorCases(""), "Links path=a.md name=")...))
}

func TestGetBacklinks(t *testing.T) {
	t.Parallel()
	next := nextCursor(key("backlinks", "N.md", ""), 2)
	cases := []toolCase{
		{name: "first page", args: `{"path":"N.md","limit":2}`, wantCall: "Backlinks path=N.md name=",
			wantData: `{"success":true,"data":{"path":"N.md","total":3,"items":[{"path":"a.md","line":1},{"path":"b.md","line":4}],"next_cursor":"` + next + `"}}`},
		{name: "last page", args: `{"path":"N.md","limit":2,"cursor":"` + next + `"}`, wantCall: "Backlinks path=N.md name=",
			wantData: `{"success":true,"data":{"path":"N.md","total":3,"items":[{"path":"c.md","line":9}]}}`},
		{name: "cursor of another note", args: `{"path":"M.md","cursor":"` + next + `"}`, wantKind: errors.InvalidParams, wantFields: []string{"cursor"}},
	}
	runCases(t, "obsidian_get_backlinks", append(cases, withCall(locatorCases(""), "Backlinks path=a.md name=")...))
}

func TestListUnresolvedLinks(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_list_unresolved_links", []toolCase{
		{name: "all", args: `{}`, wantCall: "Unresolved",
			wantData: `{"success":true,"data":{"total":1,"items":[{"target":"Nowhere","count":2,"sources":[{"path":"a.md","line":1},{"path":"b.md","line":2}]}]}}`},
		{name: "backend error", args: `{}`, err: errors.E(errors.NotRunning, "closed"), wantCall: "Unresolved", wantKind: errors.NotRunning},
		{name: "unknown argument", args: `{"path":"a.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}},
	})
}

func TestListOrphans(t *testing.T) {
	t.Parallel()
	next := nextCursor(key("orphans"), 1)
	runCases(t, "obsidian_list_orphans", []toolCase{
		{name: "paged", args: `{"limit":1}`, wantCall: "Orphans", wantData: `{"success":true,"data":{"total":3,"items":["a.md"],"next_cursor":"` + next + `"}}`},
		{name: "next", args: `{"limit":5,"cursor":"` + next + `"}`, wantCall: "Orphans", wantData: `{"success":true,"data":{"total":3,"items":["b.md","c.md"]}}`},
		{name: "past the end", args: `{"cursor":"` + nextCursor(key("orphans"), 9) + `"}`, wantCall: "Orphans", wantData: `{"success":true,"data":{"total":3,"items":[]}}`},
	})
}

func TestListTags(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_list_tags", []toolCase{
		{name: "by name, without case", args: `{}`, wantCall: "Tags",
			wantData: `{"success":true,"data":{"total":3,"items":[{"tag":"A","count":3},{"tag":"a/x","count":2},{"tag":"b","count":1}]}}`},
		{name: "by count", args: `{"sort":"count"}`, wantCall: "Tags",
			wantData: `{"success":true,"data":{"total":3,"items":[{"tag":"A","count":3},{"tag":"a/x","count":2},{"tag":"b","count":1}]}}`},
		{name: "cursor of the other order", args: `{"sort":"count","cursor":"` + nextCursor(key("tags", ""), 1) + `"}`, wantKind: errors.InvalidParams, wantFields: []string{"cursor"}},
	})
}

func TestListTaggedNotes(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_list_tagged_notes", []toolCase{
		{name: "hash and slashes trimmed", args: `{"tag":" #project/ "}`, wantCall: "Tagged project", wantData: `{"success":true,"data":{"total":2,"items":["a.md","b.md"]}}`},
		{name: "no tag", args: `{}`, wantKind: errors.InvalidParams, wantFields: []string{"tag"}},
		{name: "control characters", args: `{"tag":"a\u0001"}`, wantKind: errors.InvalidParams, wantFields: []string{"tag"}},
	})
}

func TestListProperties(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_list_properties", []toolCase{
		{name: "all", args: `{}`, wantCall: "Properties", wantData: `{"success":true,"data":{"total":1,"items":[{"name":"status","count":2,"types":["text"]}]}}`},
		{name: "limit below 1", args: `{"limit":-1}`, wantKind: errors.InvalidParams, wantFields: []string{"limit"}, wantMsg: ""},
	})
}
