package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestUpdateTags(t *testing.T) {
	t.Parallel()
	const before = "---\ntags: [a]\n---\nText #b and `#b`.\n"
	cases := []struct {
		name, args, want, data string
		wantKind               errors.Kind
		wantFields             []string
	}{
		{name: "add and remove", args: `{"path":"P.md","add":["#c","a"],"remove":["B"]}`,
			want: "---\ntags: [a, c]\n---\nText and `#b`.\n", data: `"added":["c"],"removed":1`},
		{name: "nothing to do", args: `{"path":"P.md","add":["a"]}`, want: before, data: `"changed":false,"added":[],"removed":0`},
		{name: "neither", args: `{"path":"P.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"add", "remove"}},
		{name: "bad tag", args: `{"path":"P.md","add":["two words"]}`, wantKind: errors.InvalidParams, wantFields: []string{"add"}},
		{name: "digits", args: `{"path":"P.md","remove":["#2026"]}`, wantKind: errors.InvalidParams, wantFields: []string{"remove"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{content: before}
			res, err := call(t, findTool(t, "obsidian_update_tags", fb), tc.args)
			if tc.wantKind != "" {
				checkErr(t, err, tc.wantKind, tc.wantFields, "")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fb.content != tc.want || !strings.Contains(textOf(res), tc.data) {
				t.Errorf("note %q, result %s; want %q and %s", fb.content, textOf(res), tc.want, tc.data)
			}
		})
	}
}

func TestRenameTag(t *testing.T) {
	t.Parallel()
	const before = "---\ntags: [proj/x]\n---\n#proj here\n"
	for _, dry := range []bool{true, false} {
		fb := &fakeBackend{content: before}
		args := `{"from":"#proj","to":"project"}`
		if dry {
			args = `{"from":"#proj","to":"project","dry_run":true}`
		}
		res, err := call(t, findTool(t, "obsidian_rename_tag", fb), args)
		if err != nil {
			t.Fatal(err)
		}
		// The fake answers Tagged with a.md and b.md, both holding before:
		// a dry run reads them, a rename edits them (the fake keeps one
		// content, so the second edit finds nothing left to rename).
		text := textOf(res)
		wantCalls := []string{"Tagged proj", "Read path=a.md name=", "Read path=b.md name="}
		wantText := `"notes":2,"uses":4,"paths":["a.md","b.md"],"dry_run":true`
		wantNote := before
		if !dry {
			wantCalls = []string{"Tagged proj", "Edit path=a.md name= if_match=", "Edit path=b.md name= if_match="}
			wantText = `"notes":1,"uses":2,"paths":["a.md"]`
			wantNote = "---\ntags: [project/x]\n---\n#project here\n"
		}
		if !slices.Equal(fb.calls, wantCalls) || !strings.Contains(text, wantText) || fb.content != wantNote {
			t.Errorf("dry %v: calls %q, result %s, note %q", dry, fb.calls, text, fb.content)
		}
	}
	_, err := call(t, findTool(t, "obsidian_rename_tag", &fakeBackend{}), `{"from":"a b","to":"c"}`)
	checkErr(t, err, errors.InvalidParams, []string{"from"}, "")
}
