package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestDeleteNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "to trash by default", args: `{"path":"Old.md"}`, wantCall: "Delete path=Old.md name= permanent=false",
			wantData: `{"success":true,"data":{"path":"Old.md","permanent":false}}`},
		{name: "permanent by name", args: `{"name":"Old","permanent":true}`, wantCall: "Delete path= name=Old permanent=true",
			wantData: `{"success":true,"data":{"path":"Resolved/Old.md","permanent":true}}`},
		{name: "ambiguous deletes nothing", args: `{"name":"Old"}`, wantCall: "Delete path= name=Old permanent=false",
			err: &errors.Error{Kind: errors.AmbiguousName, Message: "ambiguous", Candidates: []string{"a/Old.md", "b/Old.md"}}, wantKind: errors.AmbiguousName},
	}
	runCases(t, "obsidian_delete_note", append(cases, withCall(locatorCases(""), "Delete path=a.md name= permanent=false")...))
}
