package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestListTasks(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_list_tasks", []toolCase{
		{name: "todo by default", args: `{}`, wantCall: "Tasks status= due=.. tag= folder= text=",
			wantData: `{"success":true,"data":{"total":1,"items":[{"path":"Plan.md","line":3,"status":"todo","text":"call","due":"2026-12-01"}]}}`},
		{name: "filters passed on", args: `{"status":"done","due_after":"2026-01-01","due_before":"2026-01-31","tag":"#work","folder":"Projects","text":"call"}`,
			wantCall: "Tasks status=done due=2026-01-01..2026-01-31 tag=#work folder=Projects text=call",
			wantData: `{"success":true,"data":{"total":1,"items":[{"path":"Plan.md","line":3,"status":"todo","text":"call","due":"2026-12-01"}]}}`},
		{name: "a bad date", args: `{"due_before":"31/12/2026"}`, wantKind: errors.InvalidParams, wantFields: []string{"due_before"}},
		{name: "a bad status", args: `{"status":"open"}`, wantKind: errors.InvalidParams, wantFields: []string{"status"}},
	})
}
