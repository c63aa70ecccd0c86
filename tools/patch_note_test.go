package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestPatchNote runs the tool on a fake that keeps what is written, and
// checks the note's whole content after each edit.
func TestPatchNote(t *testing.T) {
	t.Parallel()
	plan := "---\nstatus: draft # keep\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n## Later\nl ^blk\n"
	cases := []struct {
		name, content, args string
		want                string // the note afterwards
		wantData            string // when set, the structured data
		wantKind            errors.Kind
		wantFields          []string
	}{
		{name: "append under a heading path", content: plan, args: `{"path":"P.md","heading":"Plan > Risks","operation":"append","content":"- new risk"}`,
			want: "---\nstatus: draft # keep\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\n- old risk\n- new risk\n### Deep\nd\n## Later\nl ^blk\n"},
		{name: "replace keeps subsections", content: plan, args: `{"path":"P.md","heading":"Risks","operation":"replace","content":"none\n"}`,
			want: "---\nstatus: draft # keep\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\nnone\n### Deep\nd\n## Later\nl ^blk\n"},
		{name: "block", content: plan, args: `{"path":"P.md","block":"^blk","operation":"after","content":"next"}`,
			want: "---\nstatus: draft # keep\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n## Later\nl ^blk\n\nnext\n"},
		{name: "property keeps the comment of others", content: plan, args: `{"path":"P.md","property":"tags","operation":"append","content":"b"}`,
			want: "---\nstatus: draft # keep\ntags:\n  - a\n  - b\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n## Later\nl ^blk\n"},
		{name: "property replace", content: plan, args: `{"path":"P.md","property":"status","operation":"replace","content":"done"}`,
			want: "---\nstatus: done\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n## Later\nl ^blk\n"},
		{name: "created heading", content: plan, args: `{"path":"P.md","heading":"Plan > Risks > Mitigation","operation":"append","content":"m","create_if_missing":true}`,
			want:     "---\nstatus: draft # keep\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n### Mitigation\nm\n## Later\nl ^blk\n",
			wantData: `"created":"Plan > Risks > Mitigation"`},
		{name: "created property", content: plan, args: `{"path":"P.md","property":"owner","operation":"replace","content":"me","create_if_missing":true}`,
			want:     "---\nstatus: draft # keep\ntags:\n  - a\nowner: me\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n## Later\nl ^blk\n",
			wantData: `"created":"owner"`},
		{name: "if_match current", content: plan, args: `{"path":"P.md","heading":"Later","operation":"prepend","content":"first","if_match":"` + note.ETag([]byte(plan)) + `"}`,
			want: "---\nstatus: draft # keep\ntags:\n  - a\n---\n# Plan\nintro\n## Risks\n- old risk\n### Deep\nd\n## Later\nfirst\n\nl ^blk\n"},
		{name: "if_match stale", content: plan, args: `{"path":"P.md","heading":"Later","operation":"prepend","content":"x","if_match":"00000000000000000000000000000000"}`,
			wantKind: errors.RevisionConflict},
		{name: "missing heading", content: plan, args: `{"path":"P.md","heading":"Nope","operation":"append","content":"x"}`, wantKind: errors.HeadingNotFound},
		{name: "missing property", content: plan, args: `{"path":"P.md","property":"nope","operation":"replace","content":"x"}`, wantKind: errors.PropertyNotFound},
		{name: "ambiguous", content: "# A\n## X\n# B\n## X\n", args: `{"path":"P.md","heading":"X","operation":"append","content":"x"}`, wantKind: errors.AmbiguousName},
		{name: "no target", args: `{"path":"P.md","operation":"append","content":"x"}`,
			wantKind: errors.InvalidParams, wantFields: []string{"heading", "block", "property"}},
		{name: "two targets", args: `{"path":"P.md","heading":"A","block":"b","operation":"append","content":"x"}`,
			wantKind: errors.InvalidParams, wantFields: []string{"heading", "block", "property"}},
		{name: "bad operation", args: `{"path":"P.md","heading":"A","operation":"insert","content":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"operation"}},
		{name: "before a property", content: plan, args: `{"path":"P.md","property":"status","operation":"before","content":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"operation"}},
		{name: "append to a text property", content: plan, args: `{"path":"P.md","property":"status","operation":"append","content":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"operation"}},
		{name: "bad etag", args: `{"path":"P.md","heading":"A","operation":"append","content":"x","if_match":"W/\"x\""}`, wantKind: errors.InvalidParams, wantFields: []string{"if_match"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{content: tc.content}
			res, err := call(t, findTool(t, "obsidian_patch_note", fb), tc.args)
			if tc.wantKind != "" {
				checkErr(t, err, tc.wantKind, tc.wantFields, "")
				if fb.content != tc.content {
					t.Errorf("a refused patch wrote %q", fb.content)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fb.content != tc.want {
				t.Errorf("note =\n%q\nwant\n%q", fb.content, tc.want)
			}
			got := textOf(res)
			want := `"etag":"` + note.ETag([]byte(tc.want)) + `","changed":true`
			if tc.wantData != "" {
				want = tc.wantData
			}
			if !json.Valid([]byte(got)) || !strings.Contains(got, want) {
				t.Errorf("data = %s, want it to hold %s", got, want)
			}
		})
	}
	runCases(t, "obsidian_patch_note", withCall(locatorCases(`,"heading":"A","operation":"append","content":"x"`), "Edit path=a.md name= if_match="))
}
