package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestRenameNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "keeps extension", args: `{"path":"Inbox/Plan.md","new_name":"Roadmap 2026"}`, wantCall: "Rename path=Inbox/Plan.md name= new_name=Roadmap 2026",
			wantData: `{"success":true,"data":{"from":"Inbox/Plan.md","to":"Inbox/Roadmap 2026.md"}}`},
		{name: "missing new_name", args: `{"path":"a.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"new_name"}, wantMsg: "empty"},
		{name: "new_name with folder", args: `{"path":"a.md","new_name":"x/y"}`, wantKind: errors.InvalidParams, wantFields: []string{"new_name"}, wantMsg: "move"},
		{name: "new_name with colon", args: `{"path":"a.md","new_name":"a:b"}`, wantKind: errors.InvalidParams, wantFields: []string{"new_name"}, wantMsg: "':'"},
		{name: "taken", args: `{"path":"a.md","new_name":"b"}`, err: errors.E(errors.FileExists, "exists"), wantCall: "Rename path=a.md name= new_name=b", wantKind: errors.FileExists},
	}
	runCases(t, "obsidian_rename_note", append(cases, withCall(locatorCases(`,"new_name":"x"`), "Rename path=a.md name= new_name=x")...))
}
