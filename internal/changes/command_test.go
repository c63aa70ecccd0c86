package changes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestCommand: `obsidian-mcp history` lists a vault's changes newest
// first, filtered, and shows one with its diff; bad usage says what to
// do.
func TestCommand(t *testing.T) {
	t.Parallel()
	dir, root := vault(t, map[string]string{"Plan.md": "plan\nmore\n"})
	base := t.TempDir()
	r := open(t, base, dir, root, DefaultLimits)
	for _, c := range []struct{ tool, path, before, after string }{
		{"obsidian_create_note", "Plan.md", "", "plan\n"},
		{"obsidian_append_to_note", "Plan.md", "plan\n", "plan\nmore\n"},
	} {
		p := r.Begin(c.tool, "claude-ai")
		op, before := note.PartEdit, []byte(c.before)
		if c.before == "" {
			op, before = note.PartCreate, nil
		}
		part, err := p.Part(op, c.path, "", before, []byte(c.after))
		if err != nil {
			t.Fatal(err)
		}
		part.Landed("")
		p.End()
	}
	var asked []note.UndoRequest
	undo := func(b, v string, req note.UndoRequest) (note.Undone, error) {
		if b != base || v != dir {
			t.Errorf("undo of %s under %s", v, b)
		}
		asked = append(asked, req)
		if req.ID == "20261128T090000.000000Z-000000" {
			return note.Undone{}, conflictErr{}
		}
		return note.Undone{Undone: []string{req.ID}, DryRun: req.DryRun, Change: "20261128T100000.000000Z-000000",
			Steps: []note.UndoStep{{Op: "restore", Path: "Plan.md", Merged: true}}}, nil
	}
	run := func(args ...string) (int, string, string) {
		var out, errs strings.Builder
		env := map[string]string{"OBSIDIAN_VAULT_PATH": dir, "OBSIDIAN_MCP_CHANGES_DIR": base}
		code := Command(args, func(k string) string { return env[k] }, Streams{Out: &out, Err: &errs}, undo)
		return code, out.String(), errs.String()
	}
	code, out, errs := run()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[1], "obsidian_append_to_note") || !strings.Contains(lines[2], "obsidian_create_note") || !strings.Contains(lines[1], "Plan.md") {
		t.Fatalf("list: %d %q %q", code, out, errs)
	}
	id := strings.Fields(lines[1])[2]
	if code, out, _ := run("show", id); code != 0 || !strings.Contains(out, "obsidian_append_to_note  by claude-ai") || !strings.Contains(out, "@@ -1 +1,2 @@\n plan\n+more\n") {
		t.Errorf("show: %d %q", code, out)
	}
	if code, out, _ := run("undo", id, "--dry-run"); code != 0 || !strings.Contains(out, "Would undo "+id) || !strings.Contains(out, "restore Plan.md (changed since") {
		t.Errorf("undo --dry-run: %d %q", code, out)
	}
	if code, out, _ := run("undo", id); code != 0 || !strings.Contains(out, "Undone "+id) || !strings.Contains(out, "history undo 20261128T100000.000000Z-000000` redoes it") {
		t.Errorf("undo: %d %q", code, out)
	}
	if code, _, errs := run("undo", "20261128T090000.000000Z-000000"); code != 1 || !strings.Contains(errs, "Plan.md: changed since\n-old\n+new") {
		t.Errorf("undo refused: %d %q", code, errs)
	}
	if len(asked) != 3 || !asked[0].DryRun || asked[1].DryRun || asked[1].ID != id {
		t.Errorf("undo asked %+v", asked)
	}
	if code, out, _ := run("list", "--tool", "obsidian_create_note"); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("filtered: %d %q", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"show", "20261128T090000.000000Z-000000"}, 1, "no such change"},
		{[]string{"frobnicate"}, 2, "unknown words"},
		{[]string{"--since", "yesterday"}, 2, "--since must be a time"},
		{[]string{"--changes-dir", "off"}, 2, "no change record is kept"},
		{[]string{"--vault-path", ""}, 2, "no vault"},
	} {
		code, out, errs := run(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: %d %q %q, want %d with %q", c.args, code, out, errs, c.code, c.want)
		}
	}
	if code, out, _ := run("--help"); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("--help: %d %q", code, out)
	}
	// Reading the record changes nothing in the vault.
	if data, _ := os.ReadFile(filepath.Join(dir, "Plan.md")); string(data) != "plan\nmore\n" {
		t.Errorf("the note: %q", data)
	}
}

// conflictErr is an undo's refusal, as the server gives it.
type conflictErr struct{}

func (conflictErr) Error() string { return "nothing was undone: Plan.md changed since" }
func (conflictErr) Data() map[string]any {
	return map[string]any{"conflicts": []note.UndoConflict{{Path: "Plan.md", Reason: "changed since", Diff: "-old\n+new\n"}}}
}
