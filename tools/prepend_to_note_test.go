package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestPrependToNote(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "prepend", args: `{"path":"Log.md","content":"top"}`, wantCall: `Prepend path=Log.md name= content="top" inline=false`,
			wantData: `{"success":true,"data":{"path":"Log.md","bytes":3}}`},
		{name: "inline", args: `{"path":"Log.md","content":"top","inline":true}`, wantCall: `Prepend path=Log.md name= content="top" inline=true`,
			wantData: `{"success":true,"data":{"path":"Log.md","bytes":3}}`},
		{name: "missing content", args: `{"name":"Log"}`, wantKind: errors.InvalidParams, wantFields: []string{"content"}},
	}
	runCases(t, "obsidian_prepend_to_note", append(cases, withCall(locatorCases(`,"content":"x"`), `Prepend path=a.md name= content="x" inline=false`)...))
}
