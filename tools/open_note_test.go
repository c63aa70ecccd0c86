package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestOpenNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "open", args: `{"path":"a.md"}`, wantCall: "Open path=a.md name= new_tab=false", wantData: `{"success":true,"data":{"path":"a.md","new_tab":false}}`},
		{name: "new tab", args: `{"name":"a","new_tab":true}`, wantCall: "Open path= name=a new_tab=true", wantData: `{"success":true,"data":{"path":"Resolved/a.md","new_tab":true}}`},
		{name: "app not running", args: `{"path":"a.md"}`, err: errors.E(errors.NotRunning, "Obsidian is not running"), wantCall: "Open path=a.md name= new_tab=false", wantKind: errors.NotRunning},
	}
	runCases(t, "obsidian_open_note", append(cases, withCall(locatorCases(""), "Open path=a.md name= new_tab=false")...))
}
