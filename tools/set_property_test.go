package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestSetAndRemoveProperty(t *testing.T) {
	t.Parallel()
	const before = "---\ntitle: \"Plan\" # quoted, commented\nstatus: draft\n---\nbody\n"
	cases := []struct {
		name, tool, content, args string
		want                      string
		wantKind                  errors.Kind
		wantFields                []string
	}{
		{name: "text", tool: "obsidian_set_property", args: `{"path":"P.md","key":"status","value":"done"}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\nstatus: done\n---\nbody\n"},
		{name: "number from JSON", tool: "obsidian_set_property", args: `{"path":"P.md","key":"rank","value":2.5}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\nstatus: draft\nrank: 2.5\n---\nbody\n"},
		{name: "boolean is a checkbox", tool: "obsidian_set_property", args: `{"path":"P.md","key":"done","value":true,"type":"boolean"}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\nstatus: draft\ndone: true\n---\nbody\n"},
		{name: "date", tool: "obsidian_set_property", args: `{"path":"P.md","key":"due","value":"2026-12-01","type":"date"}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\nstatus: draft\ndue: 2026-12-01\n---\nbody\n"},
		{name: "list", tool: "obsidian_set_property", args: `{"path":"P.md","key":"tags","value":["a","b c"]}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\nstatus: draft\ntags:\n  - a\n  - b c\n---\nbody\n"},
		{name: "text that YAML would misread stays text", tool: "obsidian_set_property", args: `{"path":"P.md","key":"status","value":"yes: no"}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\nstatus: 'yes: no'\n---\nbody\n"},
		{name: "new frontmatter", tool: "obsidian_set_property", content: "body", args: `{"path":"P.md","key":"status","value":"new"}`,
			want: "---\nstatus: new\n---\nbody"},
		{name: "not a date", tool: "obsidian_set_property", args: `{"path":"P.md","key":"due","value":"soon","type":"date"}`, wantKind: errors.InvalidParams, wantFields: []string{"value"}},
		{name: "array for text", tool: "obsidian_set_property", args: `{"path":"P.md","key":"k","value":["a"],"type":"text"}`, wantKind: errors.InvalidParams, wantFields: []string{"value"}},
		{name: "null", tool: "obsidian_set_property", args: `{"path":"P.md","key":"k","value":null}`, wantKind: errors.InvalidParams, wantFields: []string{"value"}},
		{name: "bad key", tool: "obsidian_set_property", args: `{"path":"P.md","key":"a: b","value":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"key"}},
		{name: "bad type", tool: "obsidian_set_property", args: `{"path":"P.md","key":"k","value":"x","type":"tags"}`, wantKind: errors.InvalidParams, wantFields: []string{"type"}},
		{name: "remove", tool: "obsidian_remove_property", args: `{"path":"P.md","key":"status"}`,
			want: "---\ntitle: \"Plan\" # quoted, commented\n---\nbody\n"},
		{name: "remove a missing one", tool: "obsidian_remove_property", args: `{"path":"P.md","key":"nope"}`, want: before},
		{name: "remove stale", tool: "obsidian_remove_property", args: `{"path":"P.md","key":"status","if_match":"00000000000000000000000000000000"}`, wantKind: errors.RevisionConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			content := tc.content
			if content == "" {
				content = before
			}
			fb := &fakeBackend{content: content}
			_, err := call(t, findTool(t, tc.tool, fb), tc.args)
			if tc.wantKind != "" {
				checkErr(t, err, tc.wantKind, tc.wantFields, "")
				if fb.content != content {
					t.Errorf("a refused edit wrote %q", fb.content)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fb.content != tc.want {
				t.Errorf("note =\n%q\nwant\n%q", fb.content, tc.want)
			}
		})
	}
	runCases(t, "obsidian_remove_property", withCall(locatorCases(`,"key":"x"`), "Edit path=a.md name= if_match="))
}
