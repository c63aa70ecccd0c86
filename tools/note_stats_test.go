package tools

import (
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Valid arguments, every one given, for the registry's checks.
func init() { examples["obsidian_note_stats"] = `{"path":"a.md"}` }

func TestNoteStats(t *testing.T) {
	t.Parallel()
	content := "---\ntags: [a, b, c, d]\n---\n# Plan\nWe don't ship a half-done thing. See [[Goals]] and ![[chart.png]].\n" +
		"- [ ] write it\n- [x] plan it\n- [-] drop it\n## 計画\n日本語のテキスト\n"
	long := strings.Repeat("word ", 239)
	cases := []toolCase{
		{name: "counts", args: `{"path":"P.md"}`, content: content, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","words":29,"characters":132,"reading_minutes":1,"headings":2,"links":2,` +
				`"tasks_open":1,"tasks_done":1,"etag":"` + note.ETag([]byte(content)) + `"}}`},
		{name: "over a minute", args: `{"path":"P.md"}`, content: long, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","words":239,"characters":1195,"reading_minutes":2,"headings":0,"links":0,` +
				`"tasks_open":0,"tasks_done":0,"etag":"` + note.ETag([]byte(long)) + `"}}`},
		{name: "frontmatter alone", args: `{"path":"P.md"}`, content: "---\ntitle: x\n---\n", wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","words":0,"characters":0,"reading_minutes":0,"headings":0,"links":0,` +
				`"tasks_open":0,"tasks_done":0,"etag":"` + note.ETag([]byte("---\ntitle: x\n---\n")) + `"}}`},
	}
	runCases(t, "obsidian_note_stats", append(cases, withCall(locatorCases(""), "Read path=a.md name=")...))
}

func TestCountWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"one two  three\n", 3},
		{"don't well-known snake_case", 3},
		{"café naïve 2026", 3},
		{"日本語", 3},
		{"Obsidianで書く", 4}, // a word, then a kana, a Han character and a kana
		{"- [ ] #tag [[Link|alias]]", 3},
	} {
		if got := countWords([]byte(tc.text)); got != tc.want {
			t.Errorf("countWords(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}
