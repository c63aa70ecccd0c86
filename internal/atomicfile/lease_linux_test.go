//go:build !fallback

package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/leasetest"
)

// TestLeaseWaitsForAWriterPausedMidSave: a program saving in place wrote
// the first half of the note and pauses (a sync client writing in chunks,
// Obsidian in a GC pause) for longer than any settle time. The update
// must not take the half for the note: it waits until the writer closes
// the file. (Judged by the clock, an update read the half after 2 ms and
// published it; the writer's second half went into the file displaced,
// and the note lost everything after the first half.)
func TestLeaseWaitsForAWriterPausedMidSave(t *testing.T) {
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	full := strings.Repeat("line of theirs\n", 1000)
	if err := os.WriteFile(p, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	saver, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := saver.Write([]byte(full[:len(full)/2])); err != nil {
		t.Fatal(err)
	}
	waited := 0
	testHookWriterOpen = func() {
		if waited++; waited == 1 {
			if _, err := saver.Write([]byte(full[len(full)/2:])); err != nil {
				t.Error(err)
			}
			saver.Close()
		}
	}
	t.Cleanup(func() { testHookWriterOpen = nil; saver.Close() })
	if _, err := Update(root, "n.md", appendLine("ours")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != full+"ours\n" {
		t.Errorf("note has %d bytes, want their whole save (%d) and our line; waited %d times", len(got), len(full), waited)
	}
}

// TestLeaseWriterAskingBeforeTheSwap: a program opens the note for writing
// while the update holds it (after the read, before the swap). Its open
// waits for the lease; the update lets it write and starts over on what
// it wrote.
func TestLeaseWriterAskingBeforeTheSwap(t *testing.T) {
	writerMeetsUpdate(t, &testHookBeforeSwap, false)
}

// TestLeaseWriterThatLookedUpTheNameBeforeTheSwap: a program that had
// reached the old file before the swap (here through a second name, a
// hard link, which is what a path lookup done just before the swap holds)
// opens it for writing right after the swap. The update sees the lease
// break, swaps back and lets it write into the file at the note's name;
// committing instead would have had it write into the file removed.
func TestLeaseWriterThatLookedUpTheNameBeforeTheSwap(t *testing.T) {
	writerMeetsUpdate(t, &testHookAfterSwap, true)
}

// writerMeetsUpdate has a program save n.md ("a\n") in place when hook
// first runs in an update appending "ours", through a hard link made
// before the update when viaLink; the note must end with both.
func writerMeetsUpdate(t *testing.T, hook *func(), viaLink bool) {
	t.Helper()
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	if err := os.WriteFile(p, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := p
	if viaLink {
		target = filepath.Join(dir, "held")
		if err := os.Link(p, target); err != nil {
			t.Fatal(err)
		}
	}
	var wrote func() error
	*hook = func() {
		if wrote == nil {
			wrote = leasetest.Save(target, []byte("a\nfrom outside\n"))
		}
	}
	t.Cleanup(func() { *hook = nil })
	res, err := Update(root, "n.md", appendLine("ours"))
	if err != nil {
		t.Fatal(err)
	}
	if err := wrote(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "a\nfrom outside\nours\n" {
		t.Errorf("content %q after %d rounds, want theirs, then ours", got, res.Rounds)
	}
}

// TestReadSettledWaitsForAWriterPausedMidSave: a read during a save paused
// half way gets the whole save.
func TestReadSettledWaitsForAWriterPausedMidSave(t *testing.T) {
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	full := strings.Repeat("x\n", 500)
	saver, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := saver.Write([]byte(full[:300])); err != nil {
		t.Fatal(err)
	}
	testHookWriterOpen = func() {
		testHookWriterOpen = nil
		if _, err := saver.Write([]byte(full[300:])); err != nil {
			t.Error(err)
		}
		saver.Close()
	}
	t.Cleanup(func() { testHookWriterOpen = nil; saver.Close() })
	got, err := ReadSettled(root, "n.md", nil)
	if err != nil || string(got) != full {
		t.Errorf("read %d bytes, %v; want the whole save (%d)", len(got), err, len(full))
	}
}

// TestLateSaveIntoTheDisplacedFileIsMerged: a program that resolved the
// note's name before the swap reaches its open only after the update
// returned (kept off the CPU by a busy machine), and saves into the file
// the swap displaced. The Published the update handed that file to sees
// the open break its lease, lets the save land, and merges it with ours;
// without the watch the save went into a file no name leads to. A save
// that changes the lines ours did (its writer had read an older note) is
// kept beside ours, line by line: nothing of either is lost. Parked, the
// file is back at the note's name by the time the writer is let in, so a
// writer that reads the note again as soon as it closed it finds its
// save there (merged only afterwards, its next save was built on a note
// without it, and overwrote the merge).
func TestLateSaveIntoTheDisplacedFileIsMerged(t *testing.T) {
	for _, parking := range []string{"", "park/here"} {
		got, err := lateSave(t, parking, appendLine("ours"), "a\nb\nlate\n")
		if err != nil || !strings.Contains(got, "late\n") || !strings.Contains(got, "ours\n") {
			t.Errorf("parking %q: note %q, %v: want the late save and ours", parking, got, err)
		}
		// The update and the late save change the same line.
		ours := func(cur []byte) ([]byte, error) { return bytes.Replace(cur, []byte("b"), []byte("ours"), 1), nil }
		got, err = lateSave(t, parking, ours, "a\ntheirs\n")
		if err != nil || !strings.Contains(got, "ours\n") || !strings.Contains(got, "theirs\n") {
			t.Errorf("parking %q: note %q, %v: want every line of both", parking, got, err)
		}
	}
}

// TestUnion keeps every line of both sides.
func TestUnion(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"a\nb\n", "a\nb\nc\n", "a\nb\nc\n"},
		{"a\nx\nb\n", "a\nb\ny\n", "a\nx\nb\ny\n"},
		{"a\nours\n", "a\ntheirs\n", "a\nours\ntheirs\n"},
		{"", "b\n", "b\n"},
	} {
		if got := string(union([]byte(tc.a), []byte(tc.b))); got != tc.want {
			t.Errorf("union(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// lateSave has an update make change to n.md ("a\nb\n") and then a program
// that had resolved the old file save content into it; it returns the
// note once the late save was taken in, and how that went. With parking
// set, the displaced file is parked there, and the note must hold the
// late save as soon as its writer closed it; parked files are gone once
// the watch ends.
func lateSave(t *testing.T, parking string, change Change, content string) (string, error) {
	t.Helper()
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	if err := os.WriteFile(p, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "held") // the name as the late program resolved it
	if err := os.Link(p, held); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var pub Published
	merged := make(chan error, 1)
	pub.SetLock(func() (func(), error) { mu.Lock(); return mu.Unlock, nil }, func(_ string, err error) { merged <- err })
	if parking != "" {
		if err := os.MkdirAll(filepath.Join(dir, parking), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	pub.SetParking(parking)
	if _, err := UpdateKnown(root, "n.md", change, &pub); err != nil {
		t.Fatal(err)
	}
	if parking != "" {
		if n := entries(t, filepath.Join(dir, parking)); n != 1 {
			t.Errorf("%d files parked, want the displaced one", n)
		}
	}
	if err := leasetest.Save(held, []byte(content))(); err != nil {
		t.Fatal(err)
	}
	// The merge may have landed already: the save's lines, in order,
	// among the note's is what its writer must find.
	if got, _ := os.ReadFile(p); parking != "" && !linesAmong(content, string(got)) {
		t.Errorf("right after the late save the note holds %q, not the save %q", got, content)
	}
	var err error
	select {
	case err = <-merged:
	case <-time.After(10 * time.Second):
		t.Fatal("the late save was not taken in within 10 s")
	}
	pub.Flush()
	if parking != "" {
		if n := entries(t, filepath.Join(dir, parking)); n != 0 {
			t.Errorf("%d files left parked after the watch", n)
		}
	}
	got, _ := os.ReadFile(p)
	return string(got), err
}

// linesAmong reports whether the lines of sub appear in s, in order.
func linesAmong(sub, s string) bool {
	lines := strings.SplitAfter(s, "\n")
	i := 0
	for _, l := range strings.SplitAfter(sub, "\n") {
		for i < len(lines) && lines[i] != l {
			i++
		}
		if i == len(lines) {
			return false
		}
		i++
	}
	return true
}

// entries counts the files in dir.
func entries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// TestSwapBackWaitsForAWriterOfOurs: another program replaces the note by
// rename just before the swap (so ours is swapped back out), and a saver
// has meanwhile opened ours, at the note's name, truncating it, its save
// not yet written. The update waits for that saver to close ours before it
// reads it: the save is merged into the note. (Read at once, ours looked
// emptied, and the save, written after, was removed with it.)
func TestSwapBackWaitsForAWriterOfOurs(t *testing.T) {
	root, dir := openRoot(t)
	p := filepath.Join(dir, "n.md")
	if err := os.WriteFile(p, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testHookBeforeSwap = func() {
		testHookBeforeSwap = nil
		outside(t, p, "a\nby rename\n", false)
	}
	var saver *os.File
	testHookAfterSwap = func() {
		testHookAfterSwap = nil
		var err error
		if saver, err = os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0); err != nil { // ours
			t.Fatal(err)
		}
		testHookWriterOpen = func() {
			testHookWriterOpen = nil
			if _, err := saver.Write([]byte("a\nours\nsaved in ours\n")); err != nil {
				t.Error(err)
			}
			saver.Close()
		}
	}
	t.Cleanup(func() {
		testHookBeforeSwap, testHookAfterSwap, testHookWriterOpen = nil, nil, nil
	})
	_, err := Update(root, "n.md", appendLine("ours"))
	if testHookWriterOpen != nil {
		// Never waited for: the saver writes now, as it would have.
		testHookWriterOpen()
	}
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	for _, want := range []string{"by rename\n", "ours\n", "saved in ours\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the note %q lacks %q", got, want)
		}
	}
	noTemps(t, dir)
}
