package vaultserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// writeCalls are a call of every tool that writes, each on the vault of
// TestEveryWriteRecorded, with the paths its change must name.
var writeCalls = []struct {
	tool  string
	args  map[string]any
	paths []string
}{
	{"obsidian_create_note", map[string]any{"path": "New.md", "content": "new\n"}, []string{"New.md"}},
	{"obsidian_append_to_note", map[string]any{"path": "Plan.md", "content": "appended"}, []string{"Plan.md"}},
	{"obsidian_prepend_to_note", map[string]any{"path": "Plan.md", "content": "prepended"}, []string{"Plan.md"}},
	{"obsidian_patch_note", map[string]any{"path": "Plan.md", "operation": "append", "heading": "Risks", "content": "- rain"}, []string{"Plan.md"}},
	{"obsidian_replace_in_note", map[string]any{"path": "Plan.md", "find": "rain", "replace": "snow"}, []string{"Plan.md"}},
	{"obsidian_replace_in_vault", map[string]any{"find": "snow", "replace": "hail", "apply": true}, []string{"Plan.md"}},
	{"obsidian_set_property", map[string]any{"path": "Plan.md", "key": "status", "value": "open"}, []string{"Plan.md"}},
	{"obsidian_remove_property", map[string]any{"path": "Plan.md", "key": "status"}, []string{"Plan.md"}},
	{"obsidian_update_tags", map[string]any{"path": "Plan.md", "add": []string{"work"}}, []string{"Plan.md"}},
	{"obsidian_rename_tag", map[string]any{"from": "work", "to": "job"}, []string{"Plan.md", "Tagged.md"}},
	// One change for the heading and the link that follows it.
	{"obsidian_rename_heading", map[string]any{"path": "Plan.md", "heading": "Risks", "to": "Dangers"}, []string{"Plan.md", "Index.md"}},
	{"obsidian_update_task", map[string]any{"path": "Tasks.md", "operation": "complete", "block": "^call"}, []string{"Tasks.md"}},
	{"obsidian_edit_canvas", map[string]any{"path": "Map.canvas", "add": []map[string]any{{"type": "text", "text": "hi"}}}, []string{"Map.canvas"}},
	{"obsidian_daily_note", map[string]any{"operation": "append", "date": "2026-11-28", "content": "today"}, []string{"2026-11-28.md"}},
	{"obsidian_rename_note", map[string]any{"path": "Plan.md", "new_name": "Roadmap"}, []string{"Plan.md", "Roadmap.md", "Index.md"}},
	{"obsidian_move_note", map[string]any{"path": "Roadmap.md", "to": "Projects/"}, []string{"Roadmap.md", "Projects/Roadmap.md"}},
	{"obsidian_folder", map[string]any{"operation": "create", "folder": "Archive/2026"}, []string{"Archive/2026"}},
	{"obsidian_folder", map[string]any{"operation": "move", "folder": "Projects", "to": "Archive/Projects"}, []string{"Projects/", "Archive/Projects/"}},
	{"obsidian_folder", map[string]any{"operation": "delete", "folder": "Archive/2026"}, []string{"Archive/2026"}},
	{"obsidian_delete_note", map[string]any{"path": "New.md"}, []string{"New.md"}},
	// The delete above, undone: the note back from the trash.
	{"obsidian_undo", map[string]any{"client": "test"}, []string{"New.md"}},
}

// notRecorded are the tools that write but make no change a server
// records: they need the app (this test serves the folder alone).
var notRecorded = []string{"obsidian_run_command"}

// TestEveryWriteRecorded: every tool that writes, called through the
// server, leaves one change in the record naming the tool, the client
// and the files it touched, with the bytes before; a tool added later
// that writes fails here until it has a call above. Reads leave none.
func TestEveryWriteRecorded(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Plan.md", "# Plan\n## Risks\n- wind\n")
	f.WriteNote("Tagged.md", "#work here\n")
	f.WriteNote("Index.md", "[[Plan]] and [[Roadmap]], [[Plan#Risks]]\n")
	f.WriteNote("Tasks.md", "- [ ] call mum ^call\n")
	f.WriteNote("Map.canvas", `{"nodes":[],"edges":[]}`)
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	cfg.ChangesDir = t.TempDir()
	s := startServer(t, cfg)
	s.initialize()

	var covered []string
	for _, c := range writeCalls {
		before := latest(t, s)
		r := decode(t, s.call(c.tool, c.args))
		if r.Error != nil || r.Result == nil || r.Result.IsError {
			t.Fatalf("%s: %+v", c.tool, r.Error)
		}
		got := latest(t, s)
		if got.ID == "" || got.ID == before.ID {
			t.Errorf("%s: no change recorded", c.tool)
			continue
		}
		if got.Tool != c.tool || got.Client != "test" {
			t.Errorf("%s: recorded as %s by %q", c.tool, got.Tool, got.Client)
		}
		for _, p := range c.paths {
			if !slices.ContainsFunc(got.Paths(), func(q string) bool { return q == p || strings.HasSuffix(q, "/"+p) }) {
				t.Errorf("%s: the change names %q, not %s", c.tool, got.Paths(), p)
			}
		}
		for _, part := range got.Parts {
			if part.Op == note.PartEdit && (part.Before == "" || part.After == "") {
				t.Errorf("%s: an edit without its bytes before or after: %+v", c.tool, part)
			}
		}
		covered = append(covered, c.tool)
	}
	for _, st := range tools.All(tools.Vault{}) {
		if name := st.Tool.Name; tools.Writes(name) && !slices.Contains(covered, name) && !slices.Contains(notRecorded, name) {
			t.Errorf("%s writes, and no call of it is checked here: add one to writeCalls", name)
		}
	}
	// A read makes no change.
	before := latest(t, s)
	s.call("obsidian_read_note", map[string]any{"path": "Index.md"})
	if after := latest(t, s); after.ID != before.ID {
		t.Errorf("a read was recorded: %+v", after)
	}
	// One change in detail: the rename's diff of the note whose link it
	// rewrote.
	list := changesOf(t, s, map[string]any{"tool": "obsidian_rename_note"})
	if len(list) != 1 {
		t.Fatalf("rename changes: %+v", list)
	}
	detail := decode(t, s.call("obsidian_history", map[string]any{"id": list[0].ID}))
	diff, _ := json.Marshal(detail.Result.StructuredContent)
	if !strings.Contains(string(diff), `-[[Plan]] and [[Roadmap]]`) || !strings.Contains(string(diff), `+[[Roadmap]] and [[Roadmap]]`) {
		t.Errorf("the rename's detail: %s", diff)
	}
	// The record is outside the vault.
	if _, err := os.Stat(filepath.Join(f.Vault, ".obsidian-mcp", "changes")); err == nil {
		t.Error("a change record inside the vault")
	}
}

// latest is the newest change of the record, or none.
func latest(t *testing.T, s *testServer) note.VaultChange {
	t.Helper()
	list := changesOf(t, s, map[string]any{"limit": 1})
	if len(list) == 0 {
		return note.VaultChange{}
	}
	return list[0]
}

func changesOf(t *testing.T, s *testServer, args map[string]any) []note.VaultChange {
	t.Helper()
	r := decode(t, s.call("obsidian_history", args))
	if r.Error != nil || r.Result == nil {
		t.Fatalf("obsidian_history: %+v", r.Error)
	}
	var out struct {
		Data struct {
			Changes []note.VaultChange `json:"changes"`
		} `json:"data"`
	}
	raw, _ := json.Marshal(r.Result.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out.Data.Changes
}
