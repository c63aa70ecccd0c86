package tools

import (
	"encoding/json"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestQueryDataview(t *testing.T) {
	t.Parallel()
	table := "| File                            | rating |\n| ------------------------------- | ------ |\n" +
		"| [[Books/Dune.md\\|Dune]]         | 5      |\n| [[Books/Piranesi.md\\|Piranesi]] | 4.5    |\n"
	runCases(t, "obsidian_query_dataview", []toolCase{
		{name: "a table", args: `{"query":"TABLE rating FROM #book SORT rating DESC"}`,
			wantCall: `QueryDataview "TABLE rating FROM #book SORT rating DESC" inline=false origin=`,
			wantData: `{"type":"table","headers":["File","rating"],"values":[[{"path":"Books/Dune.md"},5],[{"path":"Books/Piranesi.md"},4.5]],"markdown":` + jsonString(table) + `,"total":2}`,
			wantText: table},
		{name: "a fenced block", args: "{\"query\":\"```dataview\\nLIST FROM #book\\n```\"}",
			wantCall: `QueryDataview "LIST FROM #book" inline=false origin=`,
			wantData: `{"type":"list","values":[{"path":"Books/Dune.md"},{"path":"Books/Piranesi.md"}],"markdown":"- [[Books/Dune.md|Dune]]\n- [[Books/Piranesi.md|Piranesi]]\n","total":2}`,
			wantText: "- [[Books/Dune.md|Dune]]\n- [[Books/Piranesi.md|Piranesi]]\n"},
		{name: "an inline query from a note", args: `{"query":"= this.author","origin":"Books/Dune.md"}`,
			wantCall: `QueryDataview "this.author" inline=true origin=Books/Dune.md`,
			wantData: `{"type":"inline","values":"Frank Herbert","markdown":"Frank Herbert","total":1}`, wantText: "Frank Herbert"},
		{name: "tasks", args: `{"query":"TASK WHERE due"}`, wantCall: `QueryDataview "TASK WHERE due" inline=false origin=`,
			wantData: `{"type":"task","values":[{"path":"Books/Piranesi.md","line":4,"text":"lend it [due:: 2026-12-01]","task":true,"status":" ","completed":false,"children":[]}],"markdown":"- [ ] lend it [due:: 2026-12-01]\n","total":1}`,
			wantText: "- [ ] lend it [due:: 2026-12-01]\n"},
		{name: "a query that does not parse", args: `{"query":"TABLE FROM WHERE"}`, wantCall: `QueryDataview "TABLE FROM WHERE" inline=false origin=`,
			wantKind: errors.InvalidParams, wantFields: []string{"query"}, wantMsg: "line 1, column 12: expected one of"},
		{name: "a query Dataview refuses as it runs", args: `{"query":"LIST FROM #book LIMIT \"two\""}`, wantCall: `QueryDataview "LIST FROM #book LIMIT \"two\"" inline=false origin=`,
			wantKind: errors.InvalidParams, wantMsg: "limit should be a number"},
		{name: "dataviewjs is refused", args: "{\"query\":\"```dataviewjs\\ndv.list([1])\\n```\"}", wantKind: errors.InvalidParams, wantFields: []string{"query"}},
		{name: "an inline script is refused", args: `{"query":"$= dv.pages().length"}`, wantKind: errors.InvalidParams, wantFields: []string{"query"}},
		{name: "no query", args: `{}`, wantKind: errors.InvalidParams, wantFields: []string{"query"}},
		{name: "an origin outside the vault", args: `{"query":"LIST","origin":"../x.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"origin"}},
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
