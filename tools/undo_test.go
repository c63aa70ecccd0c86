package tools

import (
	"context"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func init() {
	examples["obsidian_undo"] = `{"id":"20261128T090000.000000Z-a1b2c3","dry_run":true}`
	conditional["obsidian_undo.id"] = true // or client
}

func (f *fakeBackend) Undo(_ context.Context, r note.UndoRequest) (note.Undone, error) {
	err := f.record("Undo id=%s client=%s last=%d dry=%t", r.ID, r.Client, r.Last, r.DryRun)
	return note.Undone{Undone: []string{recorded.ID}, Change: "20261128T100000.000000Z-d4e5f6", DryRun: r.DryRun,
		Steps: []note.UndoStep{{Op: "restore", Path: "Plan.md"}}}, err
}

func TestUndo(t *testing.T) {
	t.Parallel()
	done := `{"success":true,"data":{"undone":["20261128T090000.000000Z-a1b2c3"],"change":"20261128T100000.000000Z-d4e5f6","steps":[{"op":"restore","path":"Plan.md"}]}}`
	runCases(t, "obsidian_undo", []toolCase{
		{name: "by id", args: `{"id":"20261128T090000.000000Z-a1b2c3"}`, wantCall: "Undo id=20261128T090000.000000Z-a1b2c3 client= last=0 dry=false", wantData: done},
		{name: "a client's last", args: `{"client":"claude-ai"}`, wantCall: "Undo id= client=claude-ai last=1 dry=false", wantData: done},
		{name: "a client's last three, dry", args: `{"client":"claude-ai","last":3,"dry_run":true}`, wantCall: "Undo id= client=claude-ai last=3 dry=true",
			wantData: `{"success":true,"data":{"undone":["20261128T090000.000000Z-a1b2c3"],"change":"20261128T100000.000000Z-d4e5f6","dry_run":true,"steps":[{"op":"restore","path":"Plan.md"}]}}`},
		{name: "neither", args: `{}`, wantKind: errors.InvalidParams, wantFields: []string{"id"}},
		{name: "both", args: `{"id":"x","client":"y"}`, wantKind: errors.InvalidParams, wantFields: []string{"id"}},
		{name: "last without a client", args: `{"id":"x","last":2}`, wantKind: errors.InvalidParams, wantFields: []string{"last"}},
		{name: "too many", args: `{"client":"y","last":51}`, wantKind: errors.InvalidParams, wantFields: []string{"last"}},
		{name: "a conflict", args: `{"id":"x"}`, err: errors.E(errors.RevisionConflict, "Plan.md changed since"), wantCall: "Undo id=x client= last=0 dry=false", wantKind: errors.RevisionConflict},
	})
}

// TestUndoWithoutARecord: a server that keeps no record says so.
func TestUndoWithoutARecord(t *testing.T) {
	t.Parallel()
	st, _ := Named(Vault{}, "obsidian_undo")
	_, err := call(t, st, `{"id":"x"}`)
	if errors.From(err).Kind != errors.Unsupported {
		t.Fatalf("err = %v, want UNSUPPORTED", err)
	}
}
