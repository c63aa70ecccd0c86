package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func TestGetOutline(t *testing.T) {
	t.Parallel()
	content := planNote + "last ^b-1\n```\n# not a heading\n```\n"
	cases := []toolCase{
		{name: "headings blocks keys", args: `{"path":"P.md"}`, content: content, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(content)) + `","lines":16,"frontmatter_keys":["tags"],` +
				`"headings":[{"level":1,"text":"Plan","line":4,"end_line":9},{"level":2,"text":"Risks","line":6,"end_line":9},{"level":3,"text":"Deep","line":8,"end_line":9},` +
				`{"level":1,"text":"Archive","line":10,"end_line":16},{"level":2,"text":"Risks","line":11,"end_line":16}],"blocks":[{"id":"b-1","line":13}]}}`},
		{name: "plain note", args: `{"name":"x"}`, content: "just text", wantCall: "Read path= name=x",
			wantData: `{"success":true,"data":{"path":"Resolved/x.md","etag":"` + note.ETag([]byte("just text")) + `","lines":1,"frontmatter_keys":[],"headings":[],"blocks":[]}}`},
	}
	runCases(t, "obsidian_get_outline", append(cases, withCall(locatorCases(""), "Read path=a.md name=")...))
}
