package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

// noTemps fails if a temporary file was left behind anywhere under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestCreateNeverClobbers(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	if err := Create(root, "a/b/note.md", []byte("first")); err != nil {
		t.Fatal(err)
	}
	err := Create(root, "a/b/note.md", []byte("second"))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Create: err = %v, want fs.ErrExist", err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a/b/note.md"))
	if string(got) != "first" {
		t.Errorf("content = %q, want the first write kept", got)
	}
	noTemps(t, dir)
}

func TestReplaceKeepsModeAndBytes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := []byte("C:\\Users\\x \\times\r\n😀\x00end")
	if err := Replace(root, "n.md", data); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", fi.Mode().Perm())
	}
	got, _ := os.ReadFile(p)
	if string(got) != string(data) {
		t.Errorf("content = %q, want %q", got, data)
	}
	if err := Replace(root, "new/dir/n.md", []byte("x")); err != nil {
		t.Fatalf("Replace of a new file in new folders: %v", err)
	}
	noTemps(t, dir)
}

// TestPutFileSetsTheMode: PutFile writes new files and replaces old ones
// with exactly the mode asked for, whatever the old file's, and a file
// only it writes stays private.
func TestPutFileSetsTheMode(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"new", "newer"} {
		if err := PutFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		got, _ := os.ReadFile(p)
		if fi.Mode().Perm() != 0o600 || string(got) != data {
			t.Errorf("after PutFile(%q): mode %v, content %q", data, fi.Mode().Perm(), got)
		}
	}
	if err := PutFile(filepath.Join(dir, "fresh"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "fresh")); fi.Mode().Perm() != 0o600 {
		t.Errorf("a new file's mode %v", fi.Mode().Perm())
	}
	noTemps(t, dir)
}

func TestRootJail(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	root, dir := openRoot(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../x.md", "escape/x.md"} {
		if err := Create(root, name, []byte("x")); err == nil {
			t.Errorf("Create(%q) escaped the root", name)
		}
		if err := Replace(root, name, []byte("x")); err == nil {
			t.Errorf("Replace(%q) escaped the root", name)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("files written outside the root: %v", entries)
	}
}

func TestReplaceRefusesReadOnlyFiles(t *testing.T) {
	t.Parallel()
	root, dir := openRoot(t)
	p := filepath.Join(dir, "locked.md")
	if err := os.WriteFile(p, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := Replace(root, "locked.md", []byte("changed")); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("Replace(read-only) = %v, want fs.ErrPermission", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "keep" {
		t.Errorf("content = %q", got)
	}
	noTemps(t, dir)
}
