package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// state makes a vault with a state folder "s" holding a real folder d
// (with a file f) and links: l → d, lf → d/f, up → .., out → a folder
// outside the vault. It returns the vault, the Dir, and the outside
// folder's file, which nothing may touch.
func state(t *testing.T) (string, *Dir, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	base := t.TempDir()
	vault, out := filepath.Join(base, "v"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(vault, "s", "d"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	keep := filepath.Join(out, "keep")
	for _, f := range []string{filepath.Join(vault, "s", "d", "f"), keep, filepath.Join(vault, "note.md")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"l": "d", "lf": "d/f", "up": "..", "out": out} {
		if err := os.Symlink(target, filepath.Join(vault, "s", link)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Open(vault, "s", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return vault, d, keep
}

// TestLinksAreNeverFollowed: every operation refuses a link at any place
// of its path, with ErrLink and the link's path in the vault, and leaves
// what the link leads to as it was.
func TestLinksAreNeverFollowed(t *testing.T) {
	t.Parallel()
	vault, d, keep := state(t)
	ops := map[string]func(name string) error{
		"Lstat":   func(n string) error { _, err := d.Lstat(n + "/x"); return err },
		"ReadDir": func(n string) error { _, err := d.ReadDir(n); return err },
		"Mkdir":   func(n string) error { return d.Mkdir(n+"/new", 0o755) },
		"OpenFile": func(n string) error {
			f, err := d.OpenFile(n, os.O_RDONLY, 0)
			if err == nil {
				f.Close()
			}
			return err
		},
		"create in": func(n string) error { return d.Create(n+"/new", []byte("x"), 0o644) },
		"Remove in": func(n string) error { return d.Remove(n + "/f") },
		"Rename into": func(n string) error {
			if err := os.WriteFile(filepath.Join(vault, "s", "mine"), nil, 0o644); err != nil {
				return err
			}
			return d.Rename("mine", n+"/mine")
		},
		"OpenLock":    func(n string) error { _, err := d.OpenLock(n, 0o600); return err },
		"RemoveOwned": func(n string) error { return d.RemoveOwned(n, []byte("mark")) },
	}
	for op, fn := range ops {
		for _, link := range []string{"l", "lf", "up", "out"} {
			err := fn(link)
			if err == nil {
				t.Errorf("%s through %s: no error", op, link)
				continue
			}
			if op == "RemoveOwned" {
				if !errors.Is(err, ErrNotOwned) {
					t.Errorf("%s of %s: %v, want ErrNotOwned", op, link, err)
				}
				continue
			}
			if !errors.Is(err, ErrLink) {
				t.Errorf("%s through %s: %v, want ErrLink", op, link, err)
			}
		}
	}
	if data, err := os.ReadFile(keep); err != nil || string(data) != "x" {
		t.Errorf("the file outside the vault: %q, %v", data, err)
	}
	for _, p := range []string{"s/d/f", "note.md"} {
		if _, err := os.Stat(filepath.Join(vault, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"s/d/new", "s/d/mine", "new", "note.md/new"} {
		if _, err := os.Lstat(filepath.Join(vault, filepath.FromSlash(p))); err == nil {
			t.Errorf("%s was made through a link", p)
		}
	}
	// A link met is named, as a path in the vault.
	_, err := d.ReadDir("up")
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != "s/up" || !errors.Is(err, ErrLink) {
		t.Errorf("ReadDir(up) = %v, want ErrLink naming s/up", err)
	}
	// Remove of the link itself removes the name, not what it leads to.
	if err := d.Remove("lf"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(vault, "s", "d", "f")); err != nil {
		t.Errorf("removing a link removed its target: %v", err)
	}
}

// TestOpenRefusesALinkedStateFolder: a state folder that is a link (to a
// folder of notes) or a file is refused; none is made through it.
func TestOpenRefusesALinkedStateFolder(t *testing.T) {
	t.Parallel()
	vault, _, _ := state(t)
	if err := os.Symlink("s/d", filepath.Join(vault, "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(vault, "linked", true); !errors.Is(err, ErrLink) {
		t.Errorf("Open(linked) = %v, want ErrLink", err)
	}
	if _, err := Open(vault, "note.md", true); err == nil {
		t.Error("Open of a file: no error")
	}
	if _, err := Open(vault, "../v", true); err == nil {
		t.Error("Open(../v): no error")
	}
	d, err := Open(vault, "fresh", true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fi, _ := os.Lstat(filepath.Join(vault, "fresh"))
	if !d.Same(fi) {
		t.Error("Same: the folder made is not the one held")
	}
	other, _ := os.Lstat(filepath.Join(vault, "s"))
	if d.Same(other) {
		t.Error("Same: another folder is taken for the one held")
	}
}

// TestOwnedFolders: a folder made by MakeOwned is removed by RemoveOwned
// with the same mark, not with another; a folder without a marker is
// never removed; a folder inside an owned one is kept, and so is the
// owned one then.
func TestOwnedFolders(t *testing.T) {
	t.Parallel()
	vault, d, _ := state(t)
	mark := []byte("0123456789abcdef")
	if err := d.MakeOwned("p", mark, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := d.MakeOwned("p", mark, 0o700); !errors.Is(err, fs.ErrExist) {
		t.Errorf("MakeOwned twice: %v, want ErrExist", err)
	}
	f, err := d.OpenFile("p/file", os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Symlink("..", filepath.Join(vault, "s", "p", "up")); err != nil {
		t.Fatal(err)
	}
	if err := d.RemoveOwned("p", []byte("another mark....")); !errors.Is(err, ErrNotOwned) {
		t.Errorf("RemoveOwned with another mark: %v", err)
	}
	if err := d.RemoveOwned("d", mark); !errors.Is(err, ErrNotOwned) {
		t.Errorf("RemoveOwned of a folder without a marker: %v", err)
	}
	if err := d.RemoveOwned("p", mark); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(vault, "s", "p")); !os.IsNotExist(err) {
		t.Errorf("the owned folder is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(vault, "note.md")); err != nil {
		t.Errorf("a link in the owned folder was followed: %v", err)
	}
	// A folder inside keeps the owned one.
	if err := d.MakeOwned("q", mark, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := d.Mkdir("q/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := d.RemoveOwned("q", mark); err == nil {
		t.Error("an owned folder holding a folder was removed")
	}
	if _, err := os.Stat(filepath.Join(vault, "s", "q", "sub")); err != nil {
		t.Errorf("the folder inside is gone: %v", err)
	}
}

// TestLock: a lock taken is refused to another open of the file until it
// is let go.
func TestLock(t *testing.T) {
	t.Parallel()
	_, d, _ := state(t)
	a, err := d.OpenLock("lock", 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := d.OpenLock("lock", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if ok, err := a.TryLock(); !ok || err != nil {
		t.Fatalf("first TryLock: %v %v", ok, err)
	}
	if ok, _ := b.TryLock(); ok {
		t.Fatal("a held lock was taken again")
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(); !ok || err != nil {
		t.Errorf("TryLock after Unlock: %v %v", ok, err)
	}
	if _, err := d.OpenLock("missing", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenLock without perm of a missing file: %v", err)
	}
}
