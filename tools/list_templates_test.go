package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestListTemplates(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_list_templates", []toolCase{
		{name: "lists", args: `{}`, wantCall: "Templates",
			wantData: `{"success":true,"data":{"folder":"Templates","templates":[{"path":"Templates/Meeting.md","name":"Meeting","variables":["title","date:YYYY-MM-DD"]}]}}`},
		{name: "no arguments", args: `{"folder":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"folder"}},
	})
}
