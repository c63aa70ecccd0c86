package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestAppendToNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "append", args: `{"path":"Log.md","content":"- [ ] task"}`, wantCall: `Append path=Log.md name= content="- [ ] task" inline=false`,
			wantData: `{"success":true,"data":{"path":"Log.md","bytes":10}}`},
		{name: "inline by name", args: `{"name":"Log","content":"more","inline":true}`, wantCall: `Append path= name=Log content="more" inline=true`,
			wantData: `{"success":true,"data":{"path":"Resolved/Log.md","bytes":4}}`},
		{name: "missing content", args: `{"path":"Log.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"content"}, wantMsg: "must not be empty"},
		{name: "empty content", args: `{"path":"Log.md","content":""}`, wantKind: errors.InvalidParams, wantFields: []string{"content"}},
		{name: "permission", args: `{"path":"a.md","content":"x"}`, err: errors.E(errors.PermissionDenied, "permission denied: a.md"),
			wantCall: `Append path=a.md name= content="x" inline=false`, wantKind: errors.PermissionDenied},
	}
	runCases(t, "obsidian_append_to_note", append(cases, withCall(locatorCases(`,"content":"x"`), `Append path=a.md name= content="x" inline=false`)...))
}
