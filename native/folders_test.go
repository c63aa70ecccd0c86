package native

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

// TestMoveFolder: a folder moves in one step with everything in it, and
// every link to its notes and attachments, from notes and canvases and
// from the moved notes themselves, still reaches them (moving its notes
// one by one took 15 calls and left the folder behind).
func TestMoveFolder(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{
		"Sync/Setup.md":       "See [[Sync/Plans#Prices]] and ![[Sync/img/logo.png]] and [rel](Plans.md).\n",
		"Sync/Plans.md":       "# Prices\n",
		"Sync/img/logo.png":   "PNG",
		"Sync/.hidden":        "kept with it",
		"Index.md":            "[[Sync/Setup|setup]], [[Plans]], [md](Sync/Setup.md) ![[logo.png]]\n",
		"Board.canvas":        `{"nodes":[{"id":"a","type":"file","file":"Sync/Plans.md","x":0,"y":0,"width":400,"height":400}],"edges":[]}`,
		"Other/Plans copy.md": "unrelated [[Plans copy]]\n",
	})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	res, err := v.MoveFolder(ctx, "Sync/", "Services/Cloud")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Folder != "Sync" || res.To != "Services/Cloud" || res.Files != 3 || res.Links == nil || len(res.Links.Failed) != 0 {
		t.Fatalf("result %+v links %+v", res, res.Links)
	}
	if _, err := os.Stat(filepath.Join(dir, "Sync")); !os.IsNotExist(err) {
		t.Errorf("the old folder is still there: %v", err)
	}
	if got := readNote(t, dir, "Services/Cloud/.hidden"); got != "kept with it" {
		t.Errorf("hidden file: %q", got)
	}
	for rel, want := range map[string]string{
		// The vault's link format (shortest path here, as Obsidian's
		// default): the names are unique, so a name is enough.
		"Index.md":                "[[Setup|setup]], [[Plans]], [md](Setup.md) ![[logo.png]]\n",
		"Services/Cloud/Setup.md": "See [[Plans#Prices]] and ![[logo.png]] and [rel](Plans.md).\n",
	} {
		if got := readNote(t, dir, rel); got != want {
			t.Errorf("%s =\n%q\nwant\n%q", rel, got, want)
		}
	}
	if got := readNote(t, dir, "Board.canvas"); !strings.Contains(got, `"file":"Services/Cloud/Plans.md"`) {
		t.Errorf("canvas: %s", got)
	}
	if got := readNote(t, dir, "Other/Plans copy.md"); got != "unrelated [[Plans copy]]\n" {
		t.Errorf("an unrelated note changed: %q", got)
	}

	for _, c := range []struct {
		from, to string
		kind     errors.Kind
		msg      string
	}{
		{"Services", "Other", errors.FileExists, "already exists"},
		{"Services", "Services/Cloud/Deeper", errors.InvalidParams, "cannot move into itself"},
		{"Nope", "Elsewhere", errors.FileNotFound, "folder not found"},
		{"Index.md", "Elsewhere", errors.InvalidParams, "is a file, not a folder"},
		{"", "X", errors.InvalidParams, "must name a folder"},
		{"Services", ".trash/S", errors.PermissionDenied, "belong to Obsidian"},
		{"../x", "X", errors.InvalidParams, ""},
	} {
		_, err := v.MoveFolder(ctx, c.from, c.to)
		if e := errors.From(err); err == nil || e.Kind != c.kind || !strings.Contains(e.Message+fieldText(e), c.msg) {
			t.Errorf("move %q to %q: %v, want %s %q", c.from, c.to, err, c.kind, c.msg)
		}
	}
}

func fieldText(e *errors.Error) string {
	var b strings.Builder
	for _, f := range e.Fields {
		b.WriteString(f.Field + ": " + f.Message + "; ")
	}
	return b.String()
}

// TestCreateAndDeleteFolder: an empty folder is created (again: nothing
// changes) and deleted to the vault's trash; one that holds anything is
// refused, saying so.
func TestCreateAndDeleteFolder(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"Full/a.md": "a"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if r, err := v.CreateFolder(ctx, "Empty/Inner"); err != nil || !r.Changed {
		t.Fatalf("create: %+v %v", r, err)
	}
	if r, err := v.CreateFolder(ctx, "Empty/Inner/"); err != nil || r.Changed {
		t.Errorf("create again: %+v %v", r, err)
	}
	if _, err := v.CreateFolder(ctx, "Full/a.md"); errors.From(err).Kind != errors.FileExists {
		t.Errorf("create over a file: %v", err)
	}
	r, err := v.DeleteFolder(ctx, "Empty/Inner")
	if err != nil || r.TrashPath != ".trash/Inner" {
		t.Fatalf("delete: %+v %v", r, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, ".trash", "Inner")); err != nil || !fi.IsDir() {
		t.Errorf("not in the trash: %v", err)
	}
	if _, err := v.DeleteFolder(ctx, "Full"); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("delete a folder with a note: %v", err)
	}
	if got := readNote(t, dir, "Full/a.md"); got != "a" {
		t.Errorf("the note in it: %q", got)
	}
}

// TestFolderPolicy: a folder move takes along only files the policy lets
// the server change, to places it may write.
func TestFolderPolicy(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"Work/a.md": "a", "Work/Private/b.md": "b"})
	deny, _ := policy.ParseList("--deny-paths", "Work/Private/**")
	v, err := Open(dir, WithPolicy(&policy.Policy{Deny: deny}))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.MoveFolder(context.Background(), "Work", "Done"); err == nil {
		t.Error("moved a folder holding a hidden note")
	}
	if got := readNote(t, dir, "Work/Private/b.md"); got != "b" {
		t.Errorf("hidden note: %q", got)
	}
}

// TestRecoverCompletesAFolderMove: a folder move killed after the folder
// moved, before any link was rewritten, is completed by the next start
// from the journal it left (every file of the folder is in it).
func TestRecoverCompletesAFolderMove(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{
		"Later/Cloud/Setup.md": "# setup\n", // already moved from Sync/
		"Later/Cloud/Plans.md": "see [[Sync/Setup]]\n",
		"Index.md":             "[[Sync/Setup]] and [[Sync/Plans|plans]]\n",
	})
	leaveJournal(t, dir, intent{Op: opMove, Moves: map[string]string{"Sync/Setup.md": "Later/Cloud/Setup.md", "Sync/Plans.md": "Later/Cloud/Plans.md"}}, "")
	r := recoverVault(t, dir)
	if len(r.Completed) != 1 {
		t.Fatalf("recovered %+v", r)
	}
	if got := readNote(t, dir, "Index.md"); got != "[[Setup]] and [[Plans|plans]]\n" {
		t.Errorf("Index.md = %q", got)
	}
	if got := readNote(t, dir, "Later/Cloud/Plans.md"); got != "see [[Setup]]\n" {
		t.Errorf("Plans.md = %q", got)
	}
}

// TestFolderNames: a folder is made or moved to only under a name every
// platform takes (the same rules as a note's create, move and rename),
// and one that exists already under another name is still moved and
// deleted.
func TestFolderNames(t *testing.T) {
	t.Parallel()
	made := "Made on Linux?"
	if runtime.GOOS == "windows" {
		made = "Made elsewhere" // Windows cannot store '?' in a name
	}
	dir := writeVault(t, map[string]string{made + "/a.md": "a\n"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	for _, tc := range []struct{ op, folder, to, want string }{
		{"create", "COM1", "", "(COM1)"},
		{"create", "Zero\u200Bwidth", "", "U+200B"},
		{"create", strings.Repeat("f", 256), "", "at most 255 bytes"},
		{"move", made, "a*b", "must not contain '*'"},
	} {
		var err error
		if tc.op == "create" {
			_, err = v.CreateFolder(ctx, tc.folder)
		} else {
			_, err = v.MoveFolder(ctx, tc.folder, tc.to)
		}
		if errors.From(err).Kind != errors.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want INVALID_PARAMS saying %q", tc.op, tc.folder+tc.to, err, tc.want)
		}
	}
	if _, err := v.CreateFolder(ctx, strings.Repeat("f", 250)); err != nil {
		t.Errorf("a folder name of 250 bytes (no temporary copy is made of a folder): %v", err)
	}
	if _, err := v.MoveFolder(ctx, made, "Renamed"); err != nil {
		t.Errorf("a folder that exists under a name Windows refuses could not be moved to a good one: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "Renamed", "a.md")); err != nil {
		t.Error(err)
	}
}
