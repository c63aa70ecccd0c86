package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

const planNote = "---\ntags: [a]\n---\n# Plan\nintro\n## Risks\nfrost\n### Deep\nroots\n# Archive\n## Risks\nold\n"

func TestReadNote(t *testing.T) {
	t.Parallel()
	body := "# Note\n\nbody with \\ and \"quotes\"\n"
	etag := note.ETag([]byte(body))
	planTag := note.ETag([]byte(planNote))
	cases := []toolCase{
		{name: "by path returns raw text", args: `{"path":"Projects/Plan.md"}`, wantCall: "Read path=Projects/Plan.md name=",
			wantData: `{"path":"Projects/Plan.md","content":"# Note\n\nbody with \\ and \"quotes\"\n","etag":"` + etag + `"}`, wantText: body},
		{name: "an image is not read as text", args: `{"path":"Photos/cat.jpg"}`, content: "\xff\xd8\xff\xe0\x00\x10JFIF\x00", wantCall: "Read path=Photos/cat.jpg name=",
			wantKind: errors.InvalidParams, wantMsg: "Photos/cat.jpg is not a note or a text file"},
		{name: "a text file is read", args: `{"path":"data.csv"}`, content: "a,b\n1,2\n", wantCall: "Read path=data.csv name=",
			wantData: `{"path":"data.csv","content":"a,b\n1,2\n","etag":"` + note.ETag([]byte("a,b\n1,2\n")) + `"}`, wantText: "a,b\n1,2\n"},
		{name: "a note is read whatever its bytes", args: `{"path":"Old.md"}`, content: "caf\xe9\n", wantCall: "Read path=Old.md name=",
			wantData: `{"path":"Old.md","content":"caf\ufffd\n","etag":"` + note.ETag([]byte("caf\xe9\n")) + `"}`, wantText: "caf\xe9\n"},
		{name: "by name", args: `{"name":"Plan"}`, wantCall: "Read path= name=Plan",
			wantData: `{"path":"Resolved/Plan.md","content":"# Note\n\nbody with \\ and \"quotes\"\n","etag":"` + etag + `"}`, wantText: body},
		{name: "ambiguous", args: `{"name":"Plan"}`, wantCall: "Read path= name=Plan",
			err: &errors.Error{Kind: errors.AmbiguousName, Message: "the name \"Plan\" matches 2 notes", Candidates: []string{"a/Plan.md", "b/Plan.md"}}, wantKind: errors.AmbiguousName},
		{name: "section path", args: `{"path":"P.md","section":"Plan > Risks"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantData: `{"path":"P.md","content":"## Risks\nfrost\n### Deep\nroots\n","etag":"` + planTag + `","section":"Plan > Risks","lines":{"start":6,"end":9,"total":12}}`,
			wantText: "## Risks\nfrost\n### Deep\nroots\n"},
		{name: "unique leaf section", args: `{"path":"P.md","section":"deep"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantData: `{"path":"P.md","content":"### Deep\nroots\n","etag":"` + planTag + `","section":"Plan > Risks > Deep","lines":{"start":8,"end":9,"total":12}}`,
			wantText: "### Deep\nroots\n"},
		{name: "ambiguous section", args: `{"path":"P.md","section":"Risks"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantKind: errors.AmbiguousName, wantMsg: "matches 2 headings"},
		{name: "missing section", args: `{"path":"P.md","section":"Budget"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantKind: errors.HeadingNotFound, wantMsg: `no section "Budget"`},
		{name: "lines", args: `{"path":"P.md","lines":"4-5"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantData: `{"path":"P.md","content":"# Plan\nintro\n","etag":"` + planTag + `","lines":{"start":4,"end":5,"total":12}}`, wantText: "# Plan\nintro\n"},
		{name: "lines to the end", args: `{"path":"P.md","lines":"11-"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantData: `{"path":"P.md","content":"## Risks\nold\n","etag":"` + planTag + `","lines":{"start":11,"end":12,"total":12}}`, wantText: "## Risks\nold\n"},
		{name: "a range past the end is clamped", args: `{"path":"P.md","lines":"12-99"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantData: `{"path":"P.md","content":"old\n","etag":"` + planTag + `","lines":{"start":12,"end":12,"total":12}}`, wantText: "old\n"},
		{name: "lines after the end", args: `{"path":"P.md","lines":"13"}`, content: planNote, wantCall: "Read path=P.md name=",
			wantKind: errors.InvalidParams, wantFields: []string{"lines"}, wantMsg: ""},
		{name: "bad lines", args: `{"path":"P.md","lines":"3-1"}`, wantKind: errors.InvalidParams, wantFields: []string{"lines"}},
		{name: "lines not a range", args: `{"path":"P.md","lines":"first"}`, wantKind: errors.InvalidParams, wantFields: []string{"lines"}},
		{name: "section and lines", args: `{"path":"P.md","lines":"1","section":"Plan"}`, wantKind: errors.InvalidParams, wantFields: []string{"section"}},
	}
	runCases(t, "obsidian_read_note", append(cases, withCall(locatorCases(""), "Read path=a.md name=")...))
}

// TestReadNoteBounded: a note over 100 KB comes back in parts cut at line
// ends, each saying where the next starts, and the parts put together are
// the note.
func TestReadNoteBounded(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("x", 99) + "\n"
	for _, tc := range []struct{ name, note, args string }{
		{"many lines", strings.Repeat(line, 2500), `"lines":"1-"`},
		// One line of 250 KB, in characters of 1 to 4 bytes: cut inside
		// the line, never inside a character.
		{"one long line", strings.Repeat("aé日😀", 25_000) + "\nlast\n", ``},
		{"a long line from line 2", "first\n" + strings.Repeat("日本語", 40_000) + "\n", `"lines":"2-"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fb := &fakeBackend{content: tc.note}
			st := findTool(t, "obsidian_read_note", fb)
			want := tc.note
			if tc.name == "a long line from line 2" {
				want = strings.TrimPrefix(tc.note, "first\n")
			}
			var got strings.Builder
			args := `{"path":"Big.md"` + map[bool]string{true: "", false: "," + tc.args}[tc.args == ""] + `}`
			for range 10 {
				res, err := call(t, st, args)
				if err != nil {
					t.Fatal(err)
				}
				r := res.StructuredContent.(readResult)
				if len(r.Content) > maxRead || !utf8.ValidString(r.Content) {
					t.Fatalf("a part of %d bytes, valid UTF-8: %v", len(r.Content), utf8.ValidString(r.Content))
				}
				if r.Lines.End < r.Lines.Start {
					t.Errorf("lines %+v", r.Lines)
				}
				got.WriteString(r.Content)
				if !r.Truncated {
					break
				}
				if r.NextCursor == "" || len(res.Content) != 2 || !strings.Contains(res.Content[1].(mcp.TextContent).Text, r.NextCursor) {
					t.Fatalf("a cut part without its cursor and notice: %+v", res.Content)
				}
				args = `{"path":"Big.md","cursor":"` + r.NextCursor + `"}`
			}
			if got.String() != want {
				t.Errorf("the parts put together are %d bytes, want the part's %d", got.Len(), len(want))
			}
		})
	}
}

// TestReadNoteCursorRefused: a cursor of another version of the note, of
// another note, or made up is refused, naming the field and the fix.
func TestReadNoteCursorRefused(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 300_000)
	fb := &fakeBackend{content: big}
	st := findTool(t, "obsidian_read_note", fb)
	res, err := call(t, st, `{"path":"Big.md"}`)
	if err != nil {
		t.Fatal(err)
	}
	next := res.StructuredContent.(readResult).NextCursor
	fb.content = big + "changed"
	for _, args := range []string{
		`{"path":"Big.md","cursor":"` + next + `"}`,
		`{"path":"Big.md","cursor":"nonsense"}`,
		`{"path":"Big.md","cursor":"` + next + `","lines":"2-"}`,
	} {
		if _, err := call(t, st, args); err == nil || !strings.Contains(err.Error(), "cursor") {
			t.Errorf("%s: %v, want a refusal naming cursor", args, err)
		}
	}
}

// TestReadNoteDataview: with dataview, a dashboard reads as Obsidian
// shows it: each block's answer under a comment keeping its query, each
// inline query its value, a script left as written and said not run.
func TestReadNoteDataview(t *testing.T) {
	t.Parallel()
	dash := "# Books\n\nBest: `= [[Books/Dune]].author` and `$= dv.current()`\n\n```dataview\nLIST FROM #book\n```\n\n```dataviewjs\ndv.list([1])\n```\n\n```js\n`= not a query`\n```\n\n```dataview\nTABLE FROM WHERE\n```\n"
	rendered := "# Books\n\nBest: Frank Herbert and `$= dv.current()`\n\n%% dataview\nLIST FROM #book\n%%\n- [[Books/Dune.md|Dune]]\n- [[Books/Piranesi.md|Piranesi]]\n\n" +
		"```dataviewjs\ndv.list([1])\n```\n%% dataviewjs: not run (a script runs JavaScript in Obsidian) %%\n\n```js\n`= not a query`\n```\n\n" +
		"%% dataview\nTABLE FROM WHERE\n%%\n> Dataview: the query does not parse: line 1, column 12: expected one of '!', '(', '-', 'csv(', 'outgoing(', file link, string, tag ('#hello/stuff'), got \"WHERE\"\n"
	fb := &fakeBackend{content: dash}
	st := findTool(t, "obsidian_read_note", fb)
	res, err := call(t, st, `{"path":"Dash.md","dataview":true}`)
	if err != nil || res.IsError {
		t.Fatalf("error: %v %v", err, res)
	}
	r := res.StructuredContent.(readResult)
	if r.Content != rendered || r.Queries != 3 {
		t.Errorf("content (%d queries):\n%s\nwant (3)\n%s", r.Queries, r.Content, rendered)
	}
	if notice := res.Content[1].(mcp.TextContent).Text; !strings.Contains(notice, "3 Dataview queries shown answered") {
		t.Errorf("notice %q", notice)
	}
	plain, err := call(t, st, `{"path":"Dash.md"}`)
	if err != nil || plain.StructuredContent.(readResult).Content != dash {
		t.Errorf("without dataview the exact text is read: %v", err)
	}
}
