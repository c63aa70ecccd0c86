package native

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestDailyNotes: the path follows the Daily notes settings (folder, and a
// format that makes folders of its own), a missing note is made from the
// template with its variables filled in, and text is added to it.
func TestDailyNotes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".obsidian/daily-notes.json", `{"folder":"Journal/","format":"YYYY/MM/YYYY-MM-DD [log]","template":"Templates/Day"}`)
	write("Templates/Day.md", "# {{title}}\n{{date:dddd D MMMM}}\n")
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.Local)
	const p = "Journal/2026/01/2026-01-05 log.md"
	if got, err := v.DailyPath(t.Context(), day); err != nil || got != p {
		t.Fatalf("DailyPath = %q, want %q", got, p)
	}
	_, err = v.Daily(t.Context(), note.DailyRequest{Date: day, Op: note.DailyRead})
	if e := errors.From(err); e == nil || e.Kind != errors.FileNotFound || e.Details["path"] != p {
		t.Fatalf("reading a missing day: %v", err)
	}
	res, err := v.Daily(t.Context(), note.DailyRequest{Date: day, Op: note.DailyAppend, Content: "- first"})
	if err != nil || !res.Created || res.Path != p || res.Bytes != 7 {
		t.Fatalf("append = %+v, %v", res, err)
	}
	res, err = v.Daily(t.Context(), note.DailyRequest{Date: day, Op: note.DailyPrepend, Content: "top"})
	if err != nil || res.Created {
		t.Fatalf("prepend = %+v, %v", res, err)
	}
	res, err = v.Daily(t.Context(), note.DailyRequest{Date: day, Op: note.DailyRead})
	want := "top\n# 2026-01-05 log\nMonday 5 January\n\n- first"
	if err != nil || res.Content != want || res.ETag != note.ETag([]byte(want)) {
		t.Errorf("read = %+v, %v; want %q", res, err, want)
	}
	// Without settings: the plugin's defaults, the vault root and an empty note.
	os.Remove(filepath.Join(dir, ".obsidian/daily-notes.json"))
	res, err = v.Daily(t.Context(), note.DailyRequest{Date: day, Op: note.DailyAppend, Content: "x"})
	if err != nil || res.Path != "2026-01-05.md" || !res.Created {
		t.Errorf("defaults: %+v, %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "2026-01-05.md")); string(data) != "x" {
		t.Errorf("default note = %q", data)
	}
}
