package tools

import (
	"slices"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// TestIfMatch: every write tool takes if_match. Content edits become a
// compare-and-swap Edit, and so is an overwrite; delete, move and rename
// read the note first and go on, by its resolved path, only when it is that
// version (and the native engine checks it again under its write lock).
func TestIfMatch(t *testing.T) {
	t.Parallel()
	stale := "ffffffffffffffffffffffffffffffff"
	cases := []struct {
		tool, args string
		wantCalls  []string
		wantKind   errors.Kind
	}{
		{"obsidian_append_to_note", `{"name":"N","content":"x","if_match":"` + etag0 + `"}`, []string{"Edit path= name=N if_match=" + etag0}, ""},
		{"obsidian_append_to_note", `{"name":"N","content":"x","if_match":"` + stale + `"}`, []string{"Edit path= name=N if_match=" + stale}, errors.RevisionConflict},
		{"obsidian_prepend_to_note", `{"name":"N","content":"x","if_match":"` + stale + `"}`, []string{"Edit path= name=N if_match=" + stale}, errors.RevisionConflict},
		{"obsidian_append_to_note", `{"name":"N","content":"x"}`, []string{`Append path= name=N content="x" inline=false`}, ""},
		{"obsidian_delete_note", `{"name":"N","if_match":"` + etag0 + `"}`, []string{"Read path= name=N", "Delete path=Resolved/N.md name= permanent=false"}, ""},
		{"obsidian_delete_note", `{"name":"N","if_match":"` + stale + `"}`, []string{"Read path= name=N"}, errors.RevisionConflict},
		{"obsidian_move_note", `{"name":"N","to":"A","if_match":"` + stale + `"}`, []string{"Read path= name=N"}, errors.RevisionConflict},
		{"obsidian_rename_note", `{"name":"N","new_name":"M","if_match":"` + etag0 + `"}`, []string{"Read path= name=N", "Rename path=Resolved/N.md name= new_name=M"}, ""},
		// An overwrite is a compare-and-swap edit of the whole note.
		{"obsidian_create_note", `{"path":"N.md","content":"c","overwrite":true,"if_match":"` + stale + `"}`, []string{"Edit path=N.md name= if_match=" + stale}, errors.RevisionConflict},
		{"obsidian_create_note", `{"path":"N.md","content":"c","overwrite":true,"if_match":"` + etag0 + `"}`, []string{"Edit path=N.md name= if_match=" + etag0}, ""},
		{"obsidian_create_note", `{"path":"N.md","content":"c","overwrite":true,"template":"T","if_match":"` + stale + `"}`, []string{"Read path=N.md name="}, errors.RevisionConflict},
		{"obsidian_create_note", `{"path":"N.md","content":"c","if_match":"` + etag0 + `"}`, nil, errors.InvalidParams},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{}
			_, err := call(t, findTool(t, tc.tool, fb), tc.args)
			if !slices.Equal(fb.calls, tc.wantCalls) {
				t.Errorf("calls = %q, want %q", fb.calls, tc.wantCalls)
			}
			if tc.wantKind == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if e := errors.From(err); e == nil || e.Kind != tc.wantKind {
				t.Fatalf("err = %v, want %s", err, tc.wantKind)
			}
			if tc.wantKind == errors.RevisionConflict {
				if d := errors.From(err).Data(); d["etag"] != etag0 {
					t.Errorf("conflict data = %v, want the current etag", d)
				}
			}
			if fb.content != "" {
				t.Errorf("a refused write changed the note to %q", fb.content)
			}
		})
	}
}
