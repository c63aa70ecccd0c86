package tools

import (
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestDailyNote(t *testing.T) {
	t.Parallel()
	today := time.Now().Format(time.DateOnly)
	runCases(t, "obsidian_daily_note", []toolCase{
		{name: "append today", args: `{"operation":"append","content":"- done"}`, wantCall: "Daily " + today + ` append content="- done" inline=false`,
			wantData: `{"success":true,"data":{"path":"Daily/` + today + `.md","date":"` + today + `","bytes":6}}`},
		{name: "read a day", args: `{"operation":"read","date":"2026-01-05"}`, wantCall: `Daily 2026-01-05 read content="" inline=false`,
			wantData: `{"success":true,"data":{"path":"Daily/2026-01-05.md","date":"2026-01-05","content":"# Note\n\nbody with \\ and \"quotes\"\n","etag":"` + etag0 + `"}}`},
		{name: "bad date", args: `{"operation":"read","date":"05/01/2026"}`, wantKind: errors.InvalidParams, wantFields: []string{"date"}},
		{name: "no such day", args: `{"operation":"read","date":"2026-02-30"}`, wantKind: errors.InvalidParams, wantFields: []string{"date"}},
		{name: "append nothing", args: `{"operation":"append"}`, wantKind: errors.InvalidParams, wantFields: []string{"content"}},
		{name: "read with content", args: `{"operation":"read","content":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"content"}},
		{name: "bad operation", args: `{"operation":"write","content":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"operation"}},
	})
}
