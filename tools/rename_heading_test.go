package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func TestRenameHeading(t *testing.T) {
	plan := "# Plan\n## Risks\nwind\n## Team\n"
	runCases(t, "obsidian_rename_heading", []toolCase{
		{name: "empty text", args: `{"path":"P.md","heading":"Risks","to":"  "}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "text with its #s", args: `{"path":"P.md","heading":"Risks","to":"## Dangers"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "two lines", args: `{"path":"P.md","heading":"Risks","to":"a\nb"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "no such heading", args: `{"path":"P.md","heading":"Budget","to":"Money"}`, content: plan, wantCall: "Read path=P.md name=",
			wantKind: errors.HeadingNotFound, wantMsg: `no heading "Budget" in P.md`},
		{name: "another heading's text", args: `{"path":"P.md","heading":"Risks","to":"team"}`, content: plan, wantCall: "Read path=P.md name=",
			wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "the same text changes nothing", args: `{"path":"P.md","heading":"Plan > Risks","to":"Risks"}`, content: plan, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(plan)) + `","from":"Risks","to":"Risks","links":0,"notes":0,"paths":[]}}`},
	})
}
