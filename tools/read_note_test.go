package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestReadNote(t *testing.T) {
	t.Parallel()
	body := "# Note\n\nbody with \\ and \"quotes\"\n"
	cases := []toolCase{
		{name: "by path returns raw text", args: `{"path":"Projects/Plan.md"}`, wantCall: "Read path=Projects/Plan.md name=",
			wantData: `{"path":"Projects/Plan.md","content":"# Note\n\nbody with \\ and \"quotes\"\n"}`, wantText: body},
		{name: "by name", args: `{"name":"Plan"}`, wantCall: "Read path= name=Plan",
			wantData: `{"path":"Resolved/Plan.md","content":"# Note\n\nbody with \\ and \"quotes\"\n"}`, wantText: body},
		{name: "ambiguous", args: `{"name":"Plan"}`, wantCall: "Read path= name=Plan",
			err: &errors.Error{Kind: errors.AmbiguousName, Message: "the name \"Plan\" matches 2 notes", Candidates: []string{"a/Plan.md", "b/Plan.md"}}, wantKind: errors.AmbiguousName},
	}
	runCases(t, "obsidian_read_note", append(cases, withCall(locatorCases(""), "Read path=a.md name=")...))
}
