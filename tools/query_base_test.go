package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestQueryBase(t *testing.T) {
	t.Parallel()
	next := nextCursor(key("base", "Books.base", "", "Shelf"), 2)
	row := func(i string) string {
		return `{"path":"row` + i + `.md","values":{"file.name":"row` + i + `.md"}}`
	}
	runCases(t, "obsidian_query_base", []toolCase{
		{name: "first page", args: `{"path":"Books.base","view":"Shelf","limit":2}`, wantCall: "QueryBase path=Books.base name= view=Shelf",
			wantData: `{"success":true,"data":{"path":"Books.base","view":"Table","columns":["file.name"],"total":3,"rows":[` + row("0") + `,` + row("1") + `],"next_cursor":"` + next + `"}}`},
		{name: "next page", args: `{"path":"Books.base","view":"Shelf","limit":2,"cursor":"` + next + `"}`, wantCall: "QueryBase path=Books.base name= view=Shelf",
			wantData: `{"success":true,"data":{"path":"Books.base","view":"Table","columns":["file.name"],"total":3,"rows":[` + row("2") + `]}}`},
		{name: "a cursor of another view", args: `{"path":"Books.base","view":"Other","cursor":"` + next + `"}`, wantKind: errors.InvalidParams, wantFields: []string{"cursor"}},
		{name: "not a base", args: `{"path":"Books.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}},
		{name: "path and name", args: `{"path":"Books.base","name":"Books.base"}`, wantKind: errors.InvalidParams, wantFields: []string{"path", "name"}},
		{name: "a view without its base", args: `{"view":"Shelf"}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}},
	})
}
