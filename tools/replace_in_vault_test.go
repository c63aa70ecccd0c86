package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func init() {
	examples["obsidian_replace_in_vault"] = `{"find":"colour","replace":"color","folder":"Projects"}`
}

// TestReplaceInVault: a dry run by default, with each note's diff and
// etag; apply writes each note against the etag it was read at (or the
// dry run's), code blocks left alone; a note changed since the dry run is
// listed in failed, not written; a tag narrows the notes; bad input names
// its field.
func TestReplaceInVault(t *testing.T) {
	t.Parallel()
	const text = "old text\n```\nold code\n```\n"
	etag := note.ETag([]byte(text))
	for _, c := range []struct {
		name, args string
		calls      []string
		want       func(vaultReplaced) bool
		kind       errors.Kind
		fields     []string
	}{
		{name: "a dry run of the vault", args: `{"find":"old","replace":"new"}`,
			calls: []string{"List {Folder: Recursive:true Glob: Ext:md Sort: Unused:false Offset:0 Limit:1000}", "Read path=A/b.md name=", "Read path=c.md name="},
			want: func(r vaultReplaced) bool {
				return r.DryRun && r.Notes == 2 && r.Replacements == 2 && len(r.Changed) == 2 && r.Changed[0].ETag == etag &&
					strings.Contains(r.Changed[0].Diff, "-old text\n+new text") && !strings.Contains(r.Changed[0].Diff, "new code")
			}},
		{name: "applied, pinned to the dry run", args: `{"find":"old","replace":"new","apply":true,"etags":{"c.md":"` + etag + `"}}`,
			calls: []string{"Read path=c.md name=", "Edit path=c.md name= if_match=" + etag},
			want:  func(r vaultReplaced) bool { return !r.DryRun && r.Notes == 1 && r.Changed[0].Diff == "" }},
		{name: "a note changed since the dry run", args: `{"find":"old","replace":"new","apply":true,"etags":{"c.md":"stale"}}`,
			calls: []string{"Read path=c.md name="},
			want: func(r vaultReplaced) bool {
				return r.Notes == 0 && len(r.Failed) == 1 && strings.HasPrefix(r.Failed[0].Message, "REVISION_CONFLICT")
			}},
		{name: "code too, in a folder", args: `{"find":"old","replace":"new","everywhere":true,"folder":"A"}`,
			calls: []string{"List {Folder:A Recursive:true Glob: Ext:md Sort: Unused:false Offset:0 Limit:1000}", "Read path=A/b.md name=", "Read path=c.md name="},
			want: func(r vaultReplaced) bool {
				return r.Replacements == 4 && strings.Contains(r.Changed[0].Diff, "+new code")
			}},
		{name: "a tag's notes", args: `{"find":"old","tag":"#proj"}`,
			calls: []string{"Tagged proj", "Read path=a.md name=", "Read path=b.md name="},
			want:  func(r vaultReplaced) bool { return r.Notes == 2 }},
		{name: "no find", args: `{"replace":"x"}`, kind: errors.InvalidParams, fields: []string{"find"}},
		{name: "a bad pattern", args: `{"find":"(","regex":true}`, kind: errors.InvalidParams, fields: []string{"find"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{content: text}
			st := findTool(t, "obsidian_replace_in_vault", fb)
			res, err := call(t, st, c.args)
			if c.kind != "" {
				e := errors.From(err)
				if e == nil || e.Kind != c.kind {
					t.Fatalf("err = %v, want %s", err, c.kind)
				}
				for _, f := range c.fields {
					if !slices.ContainsFunc(e.Fields, func(x errors.Field) bool { return x.Field == f }) {
						t.Errorf("fields %+v lack %s", e.Fields, f)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The fake pretends every note read holds text, and Edit
			// changes its one note.
			if !slices.Equal(fb.calls, c.calls) {
				t.Errorf("calls %q, want %q", fb.calls, c.calls)
			}
			var env struct {
				Data vaultReplaced `json:"data"`
			}
			raw, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Fatal(err)
			}
			if !c.want(env.Data) {
				t.Errorf("result %+v", env.Data)
			}
		})
	}
}
