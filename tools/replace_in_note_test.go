package tools

import (
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func TestReplaceInNote(t *testing.T) {
	t.Parallel()
	const before = "# Plan\nstatus: todo\n- todo one\n- todo two\n"
	cases := []struct {
		name, args string
		want       string // the note afterwards
		wantData   []string
		wantKind   errors.Kind
		wantFields []string
	}{
		{name: "once", args: `{"path":"P.md","find":"status: todo","replace":"status: done"}`,
			want: "# Plan\nstatus: done\n- todo one\n- todo two\n", wantData: []string{`"replacements":1`, `"lines":[2]`, `"changed":true`}},
		{name: "several refused", args: `{"path":"P.md","find":"todo","replace":"done"}`, wantKind: errors.InvalidParams, wantFields: []string{"all"}},
		{name: "all, regex", args: `{"path":"P.md","find":"(?m)^- todo (\\w+)$","replace":"- done $1","regex":true,"all":true}`,
			want: "# Plan\nstatus: todo\n- done one\n- done two\n", wantData: []string{`"replacements":2`, `"lines":[3,4]`}},
		{name: "dry run writes nothing", args: `{"path":"P.md","find":"status: todo","replace":"status: done","dry_run":true}`,
			want: before, wantData: []string{`"dry_run":true`, `"changed":false`, `"etag":"` + note.ETag([]byte(before)) + `"`,
				`"diff":"--- a/P.md\n+++ b/P.md\n@@ -1,4 +1,4 @@\n # Plan\n-status: todo\n+status: done\n`}},
		{name: "dry run checks if_match", args: `{"path":"P.md","find":"x","dry_run":true,"if_match":"00000000000000000000000000000000"}`, wantKind: errors.RevisionConflict},
		{name: "missing text", args: `{"path":"P.md","find":"nowhere"}`, wantKind: errors.InvalidParams, wantFields: []string{"find"}},
		{name: "empty find", args: `{"path":"P.md","find":""}`, wantKind: errors.InvalidParams, wantFields: []string{"find"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{content: before}
			res, err := call(t, findTool(t, "obsidian_replace_in_note", fb), tc.args)
			if tc.wantKind != "" {
				checkErr(t, err, tc.wantKind, tc.wantFields, "")
				if fb.content != before {
					t.Errorf("a refused replace wrote %q", fb.content)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fb.content != tc.want {
				t.Errorf("note = %q, want %q", fb.content, tc.want)
			}
			text := textOf(res)
			for _, w := range tc.wantData {
				if !strings.Contains(text, strings.ReplaceAll(w, "\n", `\n`)) {
					t.Errorf("result %s lacks %s", text, w)
				}
			}
		})
	}
	runCases(t, "obsidian_replace_in_note", withCall(locatorCases(`,"find":"x"`), "Edit path=a.md name= if_match="))
}
