//go:build unix

package native

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestSpecialFilesAreNeverOpenedAsNotes: a FIFO named like an attachment
// or a note is refused at once by every read, never opened to wait for a
// writer (read_attachment on a FIFO named x.png hung).
func TestSpecialFilesAreNeverOpenedAsNotes(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"a.md": "a\n"})
	for _, name := range []string{"x.png", "f.md"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for name, call := range map[string]func() error{
		"FileInfo x.png": func() error { _, err := v.FileInfo(t.Context(), note.ByPath("x.png")); return err },
		"Read x.png":     func() error { _, err := v.Read(t.Context(), note.ByPath("x.png")); return err },
		"Read f.md":      func() error { _, err := v.Read(t.Context(), note.ByPath("f.md")); return err },
		"Append f.md":    func() error { _, err := v.Append(t.Context(), note.ByPath("f.md"), "x", false); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: no error", name)
			} else if k := errors.From(err).Kind; k != errors.InvalidParams && k != errors.FileNotFound {
				t.Errorf("%s: %v (%s), want it refused as not a note", name, err, k)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still waits after 10 s", name)
		}
	}
}

// TestOverwriteNeverReplacesALinkOutOfTheVault: create_note with
// overwrite on a symlink that leads out of the vault is refused, as every
// other tool refuses that path; the link and its target stay as they
// were (a rename used to replace the link with a note).
func TestOverwriteNeverReplacesALinkOutOfTheVault(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeVault(t, map[string]string{"a.md": "a\n"})
	link := filepath.Join(dir, "out.md")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	_, err = v.Create(t.Context(), note.CreateRequest{Path: "out.md", Content: "ours", Overwrite: true})
	if err == nil || errors.From(err).Kind != errors.PermissionDenied {
		t.Errorf("overwrite of a link out of the vault: %v, want PERMISSION_DENIED", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if got, _ := os.ReadFile(outside); string(got) != "outside\n" {
		t.Errorf("the file outside holds %q", got)
	}
}

// TestSettingsAndTemplatesAreReadBounded: a settings file or template
// that is a FIFO, or over maxConfig, is refused at once, not read.
func TestSettingsAndTemplatesAreReadBounded(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"a.md": "a\n"})
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".obsidian", "app.json"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := os.Truncate(filepath.Join(dir, "a.md"), maxConfig+1); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	done := make(chan error, 2)
	go func() {
		_, err := v.readSmall(".obsidian/app.json", maxConfig)
		done <- err
		_, err = v.readSmall("a.md", maxConfig)
		done <- err
	}()
	for _, what := range []string{"a FIFO", "a file over the limit"} {
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s was read", what)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", what)
		}
	}
}
