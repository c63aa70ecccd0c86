package native

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestReadWaitsOutAReplaceInProgress: on Windows a replace leaves the note
// without its name between two renames. Another server process reading
// it then (several clients on one vault) waits for the write lock the
// replace runs under and finds the note, where it answered "note not
// found" (under Wine, in 1 of 10 processes appending to one note). A
// note named like a wikilink is found from a listing of its folder,
// which misses it just the same ("no note named", 1 of 40 appends).
func TestReadWaitsOutAReplaceInProgress(t *testing.T) {
	for _, loc := range []note.Locator{note.ByPath("N.md"), note.ByName("N")} {
		t.Run(loc.Path+loc.Name, func(t *testing.T) { readDuringReplace(t, loc) })
	}
}

func readDuringReplace(t *testing.T, loc note.Locator) {
	dir := writeVault(t, map[string]string{"N.md": "the note\n"})
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// a is half way through a replace: lock held, the note set aside.
	release, err := a.writing(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p, aside := filepath.Join(dir, "N.md"), filepath.Join(dir, ".N.md.tmp-ASIDE")
	if err := os.Rename(p, aside); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	testHookLookAgain = func() { close(waiting) }
	defer func() { testHookLookAgain = nil }()
	read := make(chan error, 1)
	go func() {
		got, err := b.Read(t.Context(), loc)
		if err == nil && got.Content != "the note\n" {
			t.Errorf("read %q", got.Content)
		}
		read <- err
	}()
	select {
	case <-waiting:
	case err := <-read:
		t.Fatalf("the read did not wait for the replace: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the read neither waited nor answered within a minute")
	}
	if err := os.Rename(aside, p); err != nil {
		t.Fatal(err)
	}
	release()
	select {
	case err := <-read:
		if err != nil {
			t.Errorf("read once the replace was done: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the read did not answer within a minute of the replace")
	}
}
