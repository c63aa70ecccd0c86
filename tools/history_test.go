package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func init() {
	examples["obsidian_history"] = `{"tool":"obsidian_patch_note","limit":5}`
}

var recorded = note.VaultChange{ID: "20261128T090000.000000Z-a1b2c3", Time: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), Tool: "obsidian_append_to_note", Client: "claude-ai",
	Parts: []note.ChangePart{{Op: note.PartEdit, Path: "Plan.md", Before: "b", After: "a", Size: 4}}}

func (f *fakeBackend) Changes(_ context.Context, q note.ChangeQuery) (note.ChangeList, error) {
	err := f.record("Changes path=%s folder=%s tool=%s client=%s since=%s until=%s limit=%d cursor=%s", q.Path, q.Folder, q.Tool, q.Client,
		stamp(q.Since), stamp(q.Until), q.Limit, q.Cursor)
	return note.ChangeList{Changes: []note.VaultChange{recorded}, Next: "20261128T080000.000000Z-000000"}, err
}

func (f *fakeBackend) Change(_ context.Context, id string) (note.ChangeDetail, error) {
	err := f.record("Change %s", id)
	return note.ChangeDetail{VaultChange: recorded, Diffs: []note.PartDiff{{Path: "Plan.md", Diff: "--- a/Plan.md\n+++ b/Plan.md\n@@ -1 +1,2 @@\n plan\n+more\n"}}}, err
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func TestHistory(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.Local)
	list := `{"success":true,"data":{"changes":[{"id":"20261128T090000.000000Z-a1b2c3","time":"2026-11-28T09:00:00Z","tool":"obsidian_append_to_note","client":"claude-ai","parts":[{"op":"edit","path":"Plan.md","before":"b","after":"a","size":4}]}],"next_cursor":"20261128T080000.000000Z-000000"}}`
	runCases(t, "obsidian_history", []toolCase{
		{name: "the list", args: `{}`, wantCall: "Changes path= folder= tool= client= since=- until=- limit=20 cursor=", wantData: list},
		{name: "filtered", args: `{"path":"Plan.md","folder":"Projects","tool":"obsidian_patch_note","client":"cursor","since":"2026-11-28T09:00:00Z","until":"2026-11-28","limit":5,"cursor":"20261128T080000.000000Z-000000"}`,
			wantCall: fmt.Sprintf("Changes path=Plan.md folder=Projects tool=obsidian_patch_note client=cursor since=2026-11-28T09:00:00Z until=%s limit=5 cursor=20261128T080000.000000Z-000000", stamp(day.AddDate(0, 0, 1).Add(-time.Nanosecond))), wantData: list},
		{name: "one change", args: `{"id":"20261128T090000.000000Z-a1b2c3"}`, wantCall: "Change 20261128T090000.000000Z-a1b2c3",
			wantData: `{"success":true,"data":{"change":{"id":"20261128T090000.000000Z-a1b2c3","time":"2026-11-28T09:00:00Z","tool":"obsidian_append_to_note","client":"claude-ai","parts":[{"op":"edit","path":"Plan.md","before":"b","after":"a","size":4}],"diffs":[{"path":"Plan.md","diff":"--- a/Plan.md\n+++ b/Plan.md\n@@ -1 +1,2 @@\n plan\n+more\n"}]}}}`},
		{name: "a bad time", args: `{"since":"yesterday"}`, wantKind: errors.InvalidParams, wantFields: []string{"since"}},
		{name: "a limit too large", args: `{"limit":1000}`, wantKind: errors.InvalidParams, wantFields: []string{"limit"}},
		{name: "the record's error", args: `{"id":"x"}`, err: errors.InvalidFields(errors.Field{Field: "id", Message: "no such change"}), wantCall: "Change x", wantKind: errors.InvalidParams, wantFields: []string{"id"}},
	})
}

// TestHistoryWithoutARecord: a server that keeps no record says so, and
// how to have one.
func TestHistoryWithoutARecord(t *testing.T) {
	t.Parallel()
	st, _ := Named(Vault{}, "obsidian_history")
	_, err := call(t, st, `{}`)
	if e := errors.From(err); e == nil || e.Kind != errors.Unsupported || !strings.Contains(e.Hint, "--vault-path") {
		t.Errorf("no record: %v", err)
	}
}
