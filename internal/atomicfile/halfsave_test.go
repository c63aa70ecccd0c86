package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// beginHalfSave begins a save of p in place and writes its first half, as
// a program writing in chunks (or pausing mid-save) does: the file holds
// half a note, open for writing. The update or read under test finishes
// the save when it starts waiting for the writer; the test's end does
// otherwise.
func beginHalfSave(t *testing.T, p, content string) {
	t.Helper()
	if !HasLeases && runtime.GOOS != "windows" {
		t.Skip("no leases and no share modes (macOS, and the fallback build): a save that pauses mid-way longer than settleStep is read as it is, as docs/data-safety.md says")
	}
	saver, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := saver.WriteString(content[:len(content)/2]); err != nil {
		t.Fatal(err)
	}
	saved := false
	finish := func() {
		if !saved {
			saved = true
			if _, err := saver.WriteString(content[len(content)/2:]); err != nil {
				t.Error(err)
			}
			saver.Close()
		}
	}
	testHookWriterOpen = finish
	t.Cleanup(func() {
		testHookWriterOpen = nil
		finish()
	})
}

// TestUpdateWaitsForAHalfWrittenSave: an update that meets a note half
// saved waits for the writer (a lease refused on Linux, a handle keeping
// writers out refused on Windows) and builds on the whole save. Built on
// the half it read, under Wine it published half a note and its line, and
// the writer's next read took that for the note (955 saves and half the
// note's lines lost in a run of a chunked writer beside 40 appends).
func TestUpdateWaitsForAHalfWrittenSave(t *testing.T) {
	root, p, saved := halfSavedNote(t)
	if _, err := Update(root, "n.md", appendLine("ours")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != saved+"ours\n" {
		t.Errorf("note = %d bytes ending %q; want their whole save (%d bytes) and then our line", len(got), tail(got), len(saved))
	}
}

// TestReadSettledWaitsForAHalfWrittenSave: a read meeting a note half
// saved gets the whole save.
func TestReadSettledWaitsForAHalfWrittenSave(t *testing.T) {
	root, _, saved := halfSavedNote(t)
	got, err := ReadSettled(root, "n.md", nil)
	if err != nil || string(got) != saved {
		t.Errorf("read %d bytes, %v; want the whole save (%d bytes)", len(got), err, len(saved))
	}
}

// halfSavedNote is a note n.md in a new root, half way through a save of
// saved (beginHalfSave), and its path.
func halfSavedNote(t *testing.T) (root *os.Root, p, saved string) {
	t.Helper()
	root, dir := openRoot(t)
	p = filepath.Join(dir, "n.md")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	saved = strings.Repeat("a line of their save\n", 500)
	beginHalfSave(t, p, saved)
	return root, p, saved
}

func tail(b []byte) string {
	if len(b) > 30 {
		b = b[len(b)-30:]
	}
	return string(b)
}
