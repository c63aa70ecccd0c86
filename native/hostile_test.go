package native

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/hostile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestStateFolderLayouts: a vault that arrives with a link (or a file) in
// the state folder, in each of hostile.Layouts, keeps every file outside
// that folder, in the vault and beside it, through a write, a journaled
// tag rename, recovery at the next start and Close: the link is never
// followed. Where the write lock itself is a link, the write is refused
// naming it. (On the code before the state folder was walked by handle,
// "displaced to the vault's top" left 2 of the vault's files, and
// "journal to a folder of notes" removed its .mcpignore and run.log.)
func TestStateFolderLayouts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	t.Parallel()
	for _, l := range hostile.Layouts {
		t.Run(l.Name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			dir, out := filepath.Join(base, "vault"), filepath.Join(base, "outside")
			if err := hostile.Make(dir, out, l); err != nil {
				t.Fatal(err)
			}
			before, _ := hostile.Snapshot(base)
			key := WithJournalKey(filepath.Join(t.TempDir(), "key"))
			v, err := Open(dir, key)
			if err != nil {
				t.Fatal(err)
			}
			_, aerr := v.Append(t.Context(), note.ByPath("top.md"), "more", false)
			_, rerr := v.RenameTag(t.Context(), "proj", "done", []string{"Notes/a.md"})
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			v, err = Open(dir, key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Recover(t.Context()); err != nil && l.Refused == "" {
				t.Errorf("recover: %v", err)
			}
			_ = v.Close()
			after, _ := hostile.Snapshot(base)
			if l.Refused != "" {
				for _, err := range []error{aerr, rerr} {
					if err == nil || errors.From(err).Kind != errors.PermissionDenied || !strings.Contains(err.Error(), l.Refused) {
						t.Errorf("a write through %s: %v, want PERMISSION_DENIED naming it", l.Refused, err)
					}
				}
				if d := hostile.Changed(before, after); len(d) > 0 {
					t.Errorf("changed: %v", d)
				}
				return
			}
			if aerr != nil {
				t.Errorf("append: %v", aerr)
			}
			if d := hostile.Changed(before, after, "vault/top.md", "vault/Notes/a.md"); len(d) > 0 {
				t.Errorf("changed outside the state folder: %v", d)
			}
			if got := readNote(t, dir, "top.md"); got != hostile.Notes["top.md"]+"\nmore" {
				t.Errorf("top.md = %q", got)
			}
			a := readNote(t, dir, "Notes/a.md")
			switch {
			case rerr == nil && a != "# A\n#done\n":
				t.Errorf("the tag rename answered done, and Notes/a.md = %q", a)
			case rerr != nil && (a != hostile.Notes["Notes/a.md"] || !strings.Contains(rerr.Error(), ".obsidian-mcp/journal")):
				t.Errorf("the tag rename failed (%v), and Notes/a.md = %q; want it untouched, the error naming the journal", rerr, a)
			}
		})
	}
}
