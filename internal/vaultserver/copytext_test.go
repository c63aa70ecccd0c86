package vaultserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestTextBlocksCopyIntoEdits: what a text block shows of a note is the
// note's own text, emoji and all, so a model that copies it into an edit
// finds it there. The Tasks plugin's markers are all outside the Basic
// Multilingual Plane, which the YAML library escaped (\U0001F34E): the
// edit then failed with "does not occur in the note".
func TestTextBlocksCopyIntoEdits(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	const body = "# Shopping\n- [ ] Buy 🍎 apples 📅 2026-11-02\n\t- [ ] Ask 👩‍🌾 about 🌱 ⏳ 2026-11-01\n"
	f.WriteNote("Tasks.md", body)
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	s := startServer(t, cfg)
	s.initialize()

	text := textBlock(t, s.call("obsidian_list_tasks", map[string]any{}))
	if strings.Contains(text, `\U`) || !strings.Contains(text, "Buy 🍎 apples") {
		t.Fatalf("list_tasks text block does not show the task as written:\n%s", text)
	}
	var listed struct {
		Items []struct{ Text string } `yaml:"items"`
	}
	if err := yaml.Unmarshal([]byte(text), &listed); err != nil || len(listed.Items) != 2 {
		t.Fatalf("list_tasks text block: %v\n%s", err, text)
	}
	copied := listed.Items[0].Text // what a model copies from the block
	r := decode(t, s.call("obsidian_replace_in_note", map[string]any{"path": "Tasks.md", "find": copied, "replace": "Buy 🍏 apples", "dry_run": true}))
	if r.Error != nil || r.Result == nil || r.Result.IsError {
		t.Fatalf("replacing %q, copied from the listing: %+v", copied, r.Error)
	}
	diff := r.Result.Content[0].Text
	if !strings.Contains(diff, "diff: |") || !strings.Contains(diff, "\n  -- [ ] Buy 🍎 apples 📅 2026-11-02\n") || !strings.Contains(diff, "\n  +- [ ] Buy 🍏 apples 📅 2026-11-02\n") {
		t.Errorf("dry-run diff does not read as a diff of the note's lines:\n%s", diff)
	}

	notes := textBlock(t, s.call("obsidian_read_notes", map[string]any{"paths": []string{"Tasks.md"}}))
	if !strings.Contains(notes, "content: |\n      # Shopping\n      - [ ] Buy 🍎 apples 📅 2026-11-02\n      \t- [ ] Ask 👩‍🌾 about 🌱 ⏳ 2026-11-01\n") {
		t.Errorf("read_notes does not show the note as its lines:\n%s", notes)
	}

	r = decode(t, s.call("obsidian_replace_in_note", map[string]any{"path": "Tasks.md", "find": copied, "replace": "Buy 🍏 apples"}))
	if r.Error != nil || r.Result == nil || r.Result.IsError {
		t.Fatalf("replacing %q: %+v", copied, r.Error)
	}
	got, err := os.ReadFile(filepath.Join(f.Vault, "Tasks.md"))
	if err != nil || string(got) != strings.Replace(body, "Buy 🍎 apples", "Buy 🍏 apples", 1) {
		t.Errorf("note after the edit: %q (%v)", got, err)
	}
}

// textBlock is the first text block of a tool's answer.
func textBlock(t *testing.T, line string) string {
	t.Helper()
	r := decode(t, line)
	if r.Error != nil || r.Result == nil || len(r.Result.Content) == 0 {
		t.Fatalf("no text block in %s", line)
	}
	return r.Result.Content[0].Text
}

// TestTaskByLineAfterAnOutsideEdit: a task listed, then a line written
// above it by someone else: an update by the listed line, with the
// listing's etag or the task's text, changes nothing (it ticked whatever
// task had moved onto the line).
func TestTaskByLineAfterAnOutsideEdit(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Tasks.md", "- [ ] pay rent\n- [ ] call mum\n")
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	s := startServer(t, cfg)
	s.initialize()
	r := decode(t, s.call("obsidian_list_tasks", map[string]any{}))
	items, _ := r.Result.StructuredContent["data"].(map[string]any)["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("tasks: %v", r.Result.StructuredContent)
	}
	call := items[1].(map[string]any) // call mum, line 2
	etag, _ := call["etag"].(string)
	if call["line"] != float64(2) || etag == "" {
		t.Fatalf("listed: %v", call)
	}
	const edited = "- [ ] buy milk\n- [ ] pay rent\n- [ ] call mum\n"
	f.WriteNote("Tasks.md", edited) // someone adds a task at the top
	for _, args := range []map[string]any{
		{"path": "Tasks.md", "operation": "complete", "line": 2, "if_match": etag},
		{"path": "Tasks.md", "operation": "complete", "line": 2, "text": "call mum"},
	} {
		r := decode(t, s.call("obsidian_update_task", args))
		if r.Error == nil || r.Error.Data["errorCode"] != "REVISION_CONFLICT" {
			t.Errorf("%v: %+v, want REVISION_CONFLICT", args, r.Error)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(f.Vault, "Tasks.md")); string(got) != edited {
		t.Errorf("the note changed: %q", got)
	}
}

// TestBaseSummariesReachTheClient: a view's summaries come back with its
// rows, over every row whatever the page (they were dropped silently).
func TestBaseSummariesReachTheClient(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("Books/A.md", "---\nprice: 12\n---\n")
	f.WriteNote("Books/B.md", "---\nprice: 30\n---\n")
	f.WriteNote("Shelf.base", "filters: 'file.inFolder(\"Books\")'\nviews:\n  - type: table\n    name: Shelf\n    order: [price]\n    summaries: {price: Sum}\n")
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	s := startServer(t, cfg)
	s.initialize()
	r := decode(t, s.call("obsidian_query_base", map[string]any{"path": "Shelf.base", "limit": 1}))
	if r.Error != nil || r.Result == nil {
		t.Fatalf("%+v", r.Error)
	}
	data, _ := r.Result.StructuredContent["data"].(map[string]any)
	sums, _ := data["summaries"].(map[string]any)
	if rows, _ := data["rows"].([]any); len(rows) != 1 || sums["price"] != float64(42) {
		t.Errorf("rows %v, summaries %v; want one row on the page and a sum of 42 over both", data["rows"], data["summaries"])
	}
}
