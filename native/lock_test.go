package native

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestTwoVaultsOneFolderLoseNothing: two engines opened on one folder
// (as two server processes are: each has its own lock file descriptor,
// which flock treats as two owners) append to one note at once. Every
// append is there once.
func TestTwoVaultsOneFolderLoseNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "N.md"), []byte("# N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const per = 100
	var wg sync.WaitGroup
	for w := range 2 {
		v, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range per {
					if _, err := v.Append(t.Context(), note.ByPath("N.md"), fmt.Sprintf("line %d-%d-%d", w, g, i), false); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	got, err := os.ReadFile(filepath.Join(dir, "N.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(got), "\nline "); n != 4*per {
		t.Errorf("%d appends in the note, want %d", n, 4*per)
	}
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil {
		t.Errorf("the lock file: %v", err)
	}
}

// TestWriteLockWaitEndsWithTheCall: while another engine holds the lock, a
// write whose call ends gives up with the call's error, having written
// nothing, and the lock works again for both once it is released.
func TestWriteLockWaitEndsWithTheCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "N.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close() })
	waiter, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = waiter.Close() })
	release, err := holder.lock.acquire(t.Context(), holder)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := waiter.Append(ctx, note.ByPath("N.md"), "never", false); err != context.DeadlineExceeded {
		t.Fatalf("append while the lock is held: %v, want the deadline", err)
	}
	release()
	for _, v := range []*Engine{waiter, holder} {
		if _, err := v.Append(t.Context(), note.ByPath("N.md"), "after", false); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "N.md")); string(got) != "a\n\nafter\n\nafter" {
		t.Errorf("note = %q", got)
	}
}

// TestIfMatchCheckedAtTheChange: a delete, move or rename carrying the
// etag of a version the note no longer holds (another program saved it
// after the tool's own check) is refused by the engine under its lock,
// and the note stays; with the current etag it goes ahead.
func TestIfMatchCheckedAtTheChange(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"A.md": "new text\n", "B.md": "b\n"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	stale := note.Locator{Path: "A.md", IfMatch: note.ETag([]byte("old text\n"))}
	ctx := t.Context()
	if _, err := v.Delete(ctx, stale, true); errorKind(err) != "REVISION_CONFLICT" {
		t.Errorf("delete: %v", err)
	}
	if _, err := v.Rename(ctx, stale, "C"); errorKind(err) != "REVISION_CONFLICT" {
		t.Errorf("rename: %v", err)
	}
	if _, err := v.Move(ctx, stale, "Sub"); errorKind(err) != "REVISION_CONFLICT" {
		t.Errorf("move: %v", err)
	}
	if got := readNote(t, dir, "A.md"); got != "new text\n" {
		t.Errorf("A.md = %q", got)
	}
	fresh := note.Locator{Path: "B.md", IfMatch: note.ETag([]byte("b\n"))}
	if _, err := v.Rename(ctx, fresh, "C"); err != nil {
		t.Errorf("rename with the current etag: %v", err)
	}
}

func errorKind(err error) string {
	var e *errors.Error
	if errors.As(err, &e) {
		return string(e.Kind)
	}
	return fmt.Sprint(err)
}
