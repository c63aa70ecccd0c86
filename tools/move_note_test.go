package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestMoveNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "to folder", args: `{"path":"Inbox/Plan.md","to":"Archive"}`, wantCall: "Move path=Inbox/Plan.md name= to=Archive",
			wantData: `{"success":true,"data":{"from":"Inbox/Plan.md","to":"Archive/Plan.md"}}`},
		{name: "to full path", args: `{"path":"Inbox/Plan.md","to":"Archive/Old plan.md"}`, wantCall: "Move path=Inbox/Plan.md name= to=Archive/Old plan.md",
			wantData: `{"success":true,"data":{"from":"Inbox/Plan.md","to":"Archive/Old plan.md"}}`},
		{name: "to root", args: `{"path":"Inbox/Plan.md","to":"/"}`, wantCall: "Move path=Inbox/Plan.md name= to=/",
			wantData: `{"success":true,"data":{"from":"Inbox/Plan.md","to":"Plan.md"}}`},
		{name: "missing to", args: `{"path":"a.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}, wantMsg: "required"},
		{name: "empty to", args: `{"path":"a.md","to":""}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "to escapes", args: `{"path":"a.md","to":"../outside"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}, wantMsg: "'..'"},
		{name: "to absolute", args: `{"path":"a.md","to":"/etc/x"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "destination exists", args: `{"path":"a.md","to":"B"}`, err: errors.E(errors.FileExists, "exists"),
			wantCall: "Move path=a.md name= to=B", wantKind: errors.FileExists},
	}
	runCases(t, "obsidian_move_note", append(cases, withCall(locatorCases(`,"to":"x"`), "Move path=a.md name= to=x")...))
}
