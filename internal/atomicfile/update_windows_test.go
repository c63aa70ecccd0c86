package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// holdUnshared opens p as a program that shares nothing does (share mode
// 0): no other program may open it meanwhile.
func holdUnshared(t *testing.T, p string) windows.Handle {
	t.Helper()
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestUpdateWaitsForAnUnsharedHolder: a note another program holds open
// without sharing is waited for, not refused as "permission denied": let go
// of while the update waits, the update goes through; held for good, the
// update answers ErrBusy and the note is as it was.
func TestUpdateWaitsForAnUnsharedHolder(t *testing.T) {
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	os.WriteFile(p, []byte("a\n"), 0o644)

	h := holdUnshared(t, p)
	released := false
	testHookWriterOpen = func() {
		if !released {
			released = true
			windows.CloseHandle(h)
		}
	}
	defer func() { testHookWriterOpen = nil }()
	if _, err := Update(root, "n.md", appendLine("ours")); err != nil {
		t.Fatal(err)
	}
	if !released {
		t.Error("the update went through without waiting for the holder")
	}
	if got, _ := os.ReadFile(p); string(got) != "a\nours\n" {
		t.Errorf("content %q", got)
	}

	testHookWriterOpen = nil
	h = holdUnshared(t, p)
	_, err := Update(root, "n.md", appendLine("more"))
	windows.CloseHandle(h)
	if !errors.Is(err, ErrBusy) {
		t.Errorf("held for good: err = %v, want ErrBusy", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "a\nours\n" {
		t.Errorf("held for good: content %q, want it untouched", got)
	}
	if _, err := ReadSettled(root, "n.md", nil); err != nil {
		t.Errorf("read once let go: %v", err)
	}
	noTemps(t, dir)
}

// TestUpdateWaitsForAHolderAtTheSwap: a program that opens the note as
// Obsidian does (sharing read, write and delete) between the update's
// check and its rename makes Windows refuse the rename; the update waits
// for it to close the note, and what it wrote meanwhile is merged, not
// replaced.
func TestUpdateWaitsForAHolderAtTheSwap(t *testing.T) {
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	os.WriteFile(p, []byte("a\n"), 0o644)
	var holder *os.File
	testHookBeforeSwap = func() {
		if holder != nil {
			return
		}
		f, err := root.OpenFile("n.md", os.O_RDWR, 0)
		if err != nil {
			t.Error(err)
			return
		}
		holder = f
	}
	waited := false
	testHookWriterOpen = func() {
		if holder != nil && !waited {
			waited = true
			// Written in place while the update waits, then closed.
			if _, err := holder.WriteAt([]byte("a\nfrom outside\n"), 0); err != nil {
				t.Error(err)
			}
			holder.Close()
		}
	}
	defer func() { testHookBeforeSwap, testHookWriterOpen = nil, nil }()
	if _, err := Update(root, "n.md", appendLine("ours")); err != nil {
		t.Fatal(err)
	}
	if !waited {
		t.Error("the rename went through while another program held the note")
	}
	if got, _ := os.ReadFile(p); string(got) != "a\nfrom outside\nours\n" {
		t.Errorf("content %q, want both writes", got)
	}
	noTemps(t, dir)
}

// TestUpdateKeepsASaveThatReachesTheNameFirst: a program saves the note,
// in place or by renaming a new file onto its name, at the moment the
// update has set the note aside and is about to rename its own onto the
// name. The program's save stays, and the update starts over on it: the
// change runs again on the note with that save. (Renamed onto the note
// just before the update's own rename over it, such a save was replaced
// and gone: 13 of 14,751 writes of a sync-style writer under Wine.)
func TestUpdateKeepsASaveThatReachesTheNameFirst(t *testing.T) {
	for _, inPlace := range []bool{true, false} {
		root, dir := openRoot(t)
		p := filepath.Join(dir, "n.md")
		os.WriteFile(p, []byte("a\n"), 0o644)
		fired := false
		testHookBeforeRename = func() {
			if !fired {
				fired = true
				if inPlace {
					// As Obsidian's writeFile does: the file is made
					// when it is not there.
					if err := os.WriteFile(p, []byte("a\nfrom outside\n"), 0o644); err != nil {
						t.Error(err)
					}
				} else {
					outside(t, p, "a\nfrom outside\n", false)
				}
			}
		}
		var seen []string
		res, err := Update(root, "n.md", func(cur []byte) ([]byte, error) {
			seen = append(seen, string(cur))
			return appendLine("ours")(cur)
		})
		testHookBeforeRename = nil
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != 2 || seen[1] != "a\nfrom outside\n" {
			t.Errorf("in place %v: the change saw %q, want the note and then the note with their save", inPlace, seen)
		}
		if got, _ := os.ReadFile(p); string(got) != "a\nfrom outside\nours\n" || res.Rounds != 2 {
			t.Errorf("in place %v: content %q after %d rounds", inPlace, got, res.Rounds)
		}
		noTemps(t, dir)
	}
}

// TestUpdateNeverPublishesAHalfSave: a program half way through a save in
// place (half the note written, the file open) finishes it and closes the
// file in the moment before the update's rename. Had the update read the
// half (it did, before writers were kept out of its reads), its note
// would be at the name from the rename on, half a note and our line, for
// the writer's next read to take for the note.
func TestUpdateNeverPublishesAHalfSave(t *testing.T) {
	root, p, saved := halfSavedNote(t)
	finish := testHookWriterOpen
	testHookBeforeRename = finish
	var published []string
	testHookAfterSwap = func() {
		got, _ := os.ReadFile(p)
		published = append(published, string(got))
	}
	defer func() { testHookBeforeRename, testHookAfterSwap = nil, nil }()
	if _, err := Update(root, "n.md", appendLine("ours")); err != nil {
		t.Fatal(err)
	}
	for i, got := range published {
		if !strings.HasPrefix(got, saved) {
			t.Errorf("swap %d published %d bytes, not their whole save (%d bytes) and more", i+1, len(got), len(saved))
		}
	}
	if got, _ := os.ReadFile(p); string(got) != saved+"ours\n" {
		t.Errorf("note = %d bytes; want their whole save and then our line", len(got))
	}
}
