package native

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// These tests run on every system; what differs is said where it differs.
// On Windows (NTFS, and Wine) names are case-insensitive, so Note.md and
// note.md are one file, and a path may be longer than MAX_PATH's 260
// characters only when every call reaches it without that limit.

// names lists a folder's entries as the file system spells them, but for
// the server's own state folder.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != ".obsidian-mcp" {
			out = append(out, e.Name())
		}
	}
	return out
}

// changesCase reports whether a rename that changes only a name's case
// changes it on this system's temporary folder.
func changesCase(t *testing.T) bool {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Case"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "Case"), filepath.Join(dir, "case")); err != nil {
		t.Fatal(err)
	}
	return slices.Equal(names(t, dir), []string{"case"})
}

// TestCaseOnlyRename: renaming Note to note changes the name's case on
// disk (on Windows that is a rename of a file onto itself) and rewrites
// the links to it.
func TestCaseOnlyRename(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{
		"Inbox/Note.md": "the note\n",
		"Other.md":      "see [[Note]] and [[Inbox/Note|this]]\n",
	})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	moved, err := v.Rename(ctx, note.ByPath("Inbox/Note.md"), "note")
	if err != nil {
		t.Fatal(err)
	}
	if moved.To != "Inbox/note.md" || moved.Links == nil || moved.Links.Links != 2 || len(moved.Links.Failed) != 0 {
		t.Errorf("rename: %+v (links %+v), want to Inbox/note.md with 2 links rewritten", moved, moved.Links)
	}
	if !changesCase(t) {
		// Wine on a case-sensitive Unix folder answers every case-only
		// rename with success and keeps the old spelling; NTFS, APFS and
		// Linux change it.
		t.Log("this file system keeps a name's case on a rename that changes only that: not looked at")
	} else if got := names(t, filepath.Join(dir, "Inbox")); !slices.Equal(got, []string{"note.md"}) {
		t.Errorf("Inbox holds %q, want [note.md]", got)
	}
	got, err := v.Read(ctx, note.ByPath("Inbox/note.md"))
	if err != nil || got.Content != "the note\n" {
		t.Errorf("read after: %q, %v", got.Content, err)
	}
	other, err := os.ReadFile(filepath.Join(dir, "Other.md"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(other); strings.Contains(s, "Note") || !strings.Contains(s, "note|this]]") {
		t.Errorf("Other.md after: %q, want every link to spell note", s)
	}
}

// TestNamesThatDifferInCase: where names are case-insensitive, creating
// note.md beside Note.md is creating a note that exists, and moving
// another note onto that name is refused; the note there is untouched.
// Where they are case-sensitive (Linux) they are two notes.
func TestNamesThatDifferInCase(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"Note.md": "upper\n", "A.md": "a\n"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	_, createErr := v.Create(ctx, note.CreateRequest{Path: "note.md", Content: "lower\n"})
	_, renameErr := v.Rename(ctx, note.ByPath("A.md"), "NOTE")
	if runtime.GOOS == "windows" {
		if errors.From(createErr).Kind != errors.FileExists || errors.From(renameErr).Kind != errors.FileExists {
			t.Errorf("create note.md beside Note.md: %v; rename A to NOTE: %v; want both FILE_EXISTS", createErr, renameErr)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"A.md", "Note.md"}) {
			t.Errorf("the vault holds %q, want [A.md Note.md]", got)
		}
	} else if createErr != nil || renameErr != nil {
		t.Errorf("create note.md beside Note.md: %v; rename A to NOTE: %v; want two more notes", createErr, renameErr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "Note.md")); err != nil || string(data) != "upper\n" {
		t.Errorf("Note.md after: %q, %v", data, err)
	}
}

// TestLongPaths: a note whose path is over 260 characters (the folders'
// names are long, as notes clipped from the web make them) is created,
// edited, read, renamed with its links and moved with its folder.
func TestLongPaths(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a long folder name ", 5) // 95 bytes
	folder := strings.Join([]string{long + "1", long + "2", long + "3"}, "/")
	p := folder + "/" + strings.Repeat("Note ", 10) + "here.md"
	if n := len(p); n <= 300 {
		t.Fatalf("the path is %d characters, want over 300", n)
	}
	dir := writeVault(t, map[string]string{"Index.md": "start\n"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if _, err := v.Create(ctx, note.CreateRequest{Path: p, Content: "first\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Append(ctx, note.ByPath("Index.md"), "see [["+strings.TrimSuffix(p, ".md")+"]]", false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Append(ctx, note.ByPath(p), "second", false); err != nil {
		t.Fatal(err)
	}
	got, err := v.Read(ctx, note.ByPath(p))
	if err != nil || !strings.HasPrefix(got.Content, "first\n") || !strings.HasSuffix(got.Content, "second") {
		t.Fatalf("read: %q, %v", got.Content, err)
	}
	moved, err := v.Rename(ctx, note.ByPath(p), "Renamed")
	if err != nil || moved.Links == nil || moved.Links.Links != 1 {
		t.Fatalf("rename: %+v, %v", moved, err)
	}
	if _, err := v.MoveFolder(ctx, long+"1", "Moved"); err != nil {
		t.Fatal(err)
	}
	want := "Moved/" + long + "2/" + long + "3/Renamed.md"
	if after, err := v.Read(ctx, note.ByPath(want)); err != nil || after.Content != got.Content {
		t.Errorf("read %s after the moves: %q, %v; want %q", want, after.Content, err, got.Content)
	}
	index, err := os.ReadFile(filepath.Join(dir, "Index.md"))
	if err != nil || !strings.Contains(string(index), "[[Renamed]]") { // the shortest link that reaches it
		t.Errorf("Index.md after the moves: %q, %v; want its link to follow", index, err)
	}
}
