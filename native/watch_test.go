package native

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// TestWatcherBarrier: a change that completed before Changed is always in
// its answer, with no sleep between (the sentinel barrier), in an existing
// folder, in a folder made just now, and for an edit in place.
func TestWatcherBarrier(t *testing.T) {
	if runtime.GOOS != "linux" || fallbackBuild {
		t.Skip("the watcher is used on Linux only; elsewhere the index sweeps")
	}
	dir := t.TempDir()
	writeFile := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("A/old.md", "x")
	w := startWatcher(dir)
	if w == nil {
		t.Fatal("no watcher on Linux")
	}
	defer w.close()
	if _, ok := w.Changed(); !ok {
		t.Fatal("a fresh watcher is incomplete")
	}
	for i := range 200 {
		var want string
		switch i % 3 {
		case 0:
			want = fmt.Sprintf("A/n%d.md", i)
		case 1:
			want = fmt.Sprintf("New%d/Deep/n.md", i) // two new folders at once
		case 2:
			want = "A/old.md" // in place
		}
		writeFile(want, fmt.Sprint(i))
		got, ok := w.Changed()
		if !ok || !slices.Contains(got, want) {
			t.Fatalf("round %d: Changed() = %q, %v; want it to hold %s", i, got, ok, want)
		}
	}
	w.close()
	if _, ok := w.Changed(); ok {
		t.Error("a closed watcher claims to be complete")
	}
}

// TestWatcherHiddenAndEmpty: hidden folders are not watched, and a call
// with nothing changed answers an empty, complete list.
func TestWatcherHiddenAndEmpty(t *testing.T) {
	if runtime.GOOS != "linux" || fallbackBuild {
		t.Skip("the watcher is used on Linux only")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(dir)
	if w == nil {
		t.Fatal("no watcher")
	}
	defer w.close()
	w.Changed()
	if err := os.WriteFile(filepath.Join(dir, ".obsidian", "plugins", "x.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok := w.Changed()
	if !ok || len(got) != 0 {
		t.Errorf("after a write under .obsidian/plugins: %q, %v; want nothing, complete", got, ok)
	}
}

// TestWatcherTrustedAgainAfterDoubt: a late sentinel or an error from the
// kernel (an overflow) makes one answer incomplete, so the index sweeps
// once; the watch is renewed before that answer, and the next calls are
// complete again and see what changed after it. (The watcher used to
// give up for good on one late sentinel: every later search swept.)
func TestWatcherTrustedAgainAfterDoubt(t *testing.T) {
	if runtime.GOOS != "linux" || fallbackBuild {
		t.Skip("the watcher is used on Linux only")
	}
	dir := t.TempDir()
	w := startWatcher(dir)
	if w == nil {
		t.Fatal("no watcher on Linux")
	}
	defer w.close()
	write := func(rel string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trusted := func(want string) {
		t.Helper()
		write(want)
		if got, ok := w.Changed(); !ok || !slices.Contains(got, want) {
			t.Fatalf("Changed() = %q, %v; want it complete, holding %s", got, ok, want)
		}
	}
	doubted := func(how string, doubt func()) {
		t.Helper()
		first := w.cur
		doubt()
		if got, ok := w.Changed(); ok {
			t.Fatalf("%s: Changed() = %q, complete; want incomplete", how, got)
		}
		if w.cur == nil || w.cur == first {
			t.Fatalf("%s: the watch was not renewed", how)
		}
	}
	trusted("a.md")
	doubted("a sentinel late", func() { w.patience = 0 })
	w.patience = sentinelPatience
	for i := range 3 {
		trusted(fmt.Sprintf("after-late-%d.md", i))
	}
	// The kernel's overflow reaches fsnotify's Errors; run takes it before
	// the sentinel's event, which comes after it on the same goroutine.
	doubted("an overflow", func() { w.cur.w.Errors <- fsnotify.ErrEventOverflow })
	for i := range 3 {
		trusted(fmt.Sprintf("after-overflow-%d.md", i))
	}
}
