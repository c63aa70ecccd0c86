package native

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestPeriodicNotes: weekly, monthly, quarterly and yearly notes are found
// and created as Obsidian would: with the Periodic Notes plugin's folder,
// format and template when the plugin is on and the period enabled, and
// otherwise with its default format in the Daily notes folder.
func TestPeriodicNotes(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".obsidian/daily-notes.json", `{"folder":"Journal"}`)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.Local) // a Wednesday
	call := func(period, op, content string) (note.Daily, error) {
		return v.Daily(t.Context(), note.DailyRequest{Date: day, Period: period, Op: op, Content: content})
	}
	// Without the plugin: its default formats, in the Daily notes folder.
	for period, want := range map[string]string{
		note.Day: "Journal/2026-11-25.md", note.Week: "Journal/2026-W48.md", note.Month: "Journal/2026-11.md",
		note.Quarter: "Journal/2026-Q4.md", note.Year: "Journal/2026.md",
	} {
		res, err := call(period, note.DailyAppend, "- x")
		if err != nil || res.Path != want || !res.Created {
			t.Errorf("%s: %+v, %v; want %s created", period, res, err, want)
		}
	}
	// With the plugin on: its settings for the periods it enables.
	write(".obsidian/community-plugins.json", `["calendar","periodic-notes"]`)
	write(".obsidian/plugins/periodic-notes/data.json", `{
		"weekly": {"enabled": true, "folder": "Reviews/Weekly/", "format": "GGGG-[W]WW", "template": "Templates/Week"},
		"monthly": {"enabled": true, "format": "YYYY/MMMM"},
		"quarterly": {"enabled": false, "folder": "Ignored"}
	}`)
	write("Templates/Week.md", "# {{title}}\nWeek of {{date:D MMMM}}\n")
	res, err := call(note.Week, note.DailyAppend, "- shipped")
	if want := "Reviews/Weekly/2026-W48.md"; err != nil || res.Path != want || res.Date != "2026-11-23" || res.Period != note.Week {
		t.Fatalf("weekly: %+v, %v; want %s from Monday 2026-11-23", res, err, want)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "Reviews/Weekly/2026-W48.md")); string(got) != "# 2026-W48\nWeek of 23 November\n\n- shipped" {
		t.Errorf("weekly note from the template = %q", got)
	}
	if res, err := call(note.Month, note.DailyAppend, "x"); err != nil || res.Path != "2026/November.md" || res.Date != "2026-11-01" {
		t.Errorf("monthly: %+v, %v", res, err)
	}
	if res, err := call(note.Quarter, note.DailyRead, ""); err != nil || res.Path != "Journal/2026-Q4.md" || res.Content != "- x" {
		t.Errorf("quarterly (disabled in the plugin: the default): %+v, %v", res, err)
	}
	// A Sunday starts the locale week of the default format.
	sunday := time.Date(2026, 11, 29, 0, 0, 0, 0, time.Local)
	if got := periodStart(sunday, note.Week, "gggg-[W]ww"); got.Format(time.DateOnly) != "2026-11-29" {
		t.Errorf("locale week of a Sunday starts %s", got.Format(time.DateOnly))
	}
	if got := periodStart(sunday, note.Week, "GGGG-[W]WW"); got.Format(time.DateOnly) != "2026-11-23" {
		t.Errorf("ISO week of a Sunday starts %s", got.Format(time.DateOnly))
	}
	_, err = v.Daily(t.Context(), note.DailyRequest{Date: day.AddDate(1, 0, 0), Period: note.Year, Op: note.DailyRead})
	if e := errors.From(err); e == nil || e.Kind != errors.FileNotFound || e.Details["path"] != "Journal/2027.md" {
		t.Errorf("reading a year without a note: %v", err)
	}
}
