package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
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

// bulkBackend renames tags as one edit, as the native engine does: it
// answers ErrNoBulk when noBulk, and otherwise what it did with err.
type bulkBackend struct {
	*fakeBackend
	noBulk bool
	did    note.TagRename
	err    error
	paths  []string
}

func (b *bulkBackend) RenameTag(_ context.Context, from, to string, paths []string) (note.TagRename, error) {
	if b.noBulk {
		return note.TagRename{}, ErrNoBulk
	}
	b.paths = paths
	return b.did, b.err
}

// TestRenameTagAsOneEdit: with a backend that renames tags as one
// journaled edit, the tool hands it the tagged notes and reports what it
// did; one cancelled part way fails with what was done in data.done; one
// that cannot (no vault folder) leaves the tool to rename note by note.
func TestRenameTagAsOneEdit(t *testing.T) {
	t.Parallel()
	did := note.TagRename{Notes: 1, Uses: 2, Paths: []string{"a.md"}, Failed: []note.FailedNote{{Path: "b.md", Message: "busy"}}}
	b := &bulkBackend{fakeBackend: &fakeBackend{}, did: did}
	res, err := call(t, findTool(t, "obsidian_rename_tag", b), `{"from":"proj","to":"project"}`)
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(res); !strings.Contains(text, `"notes":1,"uses":2,"paths":["a.md"],"failed":[{"path":"b.md","message":"busy"}]`) || !slices.Equal(b.paths, []string{"a.md", "b.md"}) {
		t.Errorf("result %s, paths handed %q", text, b.paths)
	}
	b = &bulkBackend{fakeBackend: &fakeBackend{}, did: did, err: context.Canceled}
	_, err = call(t, findTool(t, "obsidian_rename_tag", b), `{"from":"proj","to":"project"}`)
	e := errors.From(err)
	if e == nil || e.Kind != errors.Cancelled || !strings.Contains(e.Message, "renamed in 1 notes before it stopped") {
		t.Fatalf("cancelled: %v", err)
	}
	if done, ok := e.Data()["done"].(tagRenamed); !ok || done.Notes != 1 || !slices.Equal(done.Paths, []string{"a.md"}) {
		t.Errorf("data.done = %#v", e.Data()["done"])
	}
	b = &bulkBackend{fakeBackend: &fakeBackend{content: "#proj\n"}, noBulk: true}
	if _, err := call(t, findTool(t, "obsidian_rename_tag", b), `{"from":"proj","to":"project"}`); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.calls, "Edit path=a.md name= if_match=") {
		t.Errorf("without one edit, the notes were not edited one by one: %q", b.calls)
	}
}
