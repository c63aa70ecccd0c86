package native

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestInPlaceSaverOnTheSameNote: a program saves one note in place as
// Obsidian does (read, truncate, write: a reader can see it empty or half
// written), hundreds of times a second, while two engines on the folder
// append to it. None of its saves is lost. (Before the engine waited for
// such saves, it built on what it read mid-save, and the note lost
// thousands of lines at once.) Its saves may replace an append of ours it
// did not read; that is the saver's lost update, not ours, and the test
// only reports it.
func TestInPlaceSaverOnTheSameNote(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"S.md": "# S\n"})
	p := filepath.Join(dir, "S.md")
	// A save every few milliseconds; Obsidian's come seconds apart. An
	// update needs the note unchanged from its read to its swap: Linux's
	// leases make the saver wait that long; without them (Windows) the
	// update waits for a pause between two saves, which Wine's slower
	// system calls make longer than 2 ms.
	pause := 2 * time.Millisecond
	if runtime.GOOS == "windows" {
		pause = 20 * time.Millisecond
	}
	var stop atomic.Bool
	var saved []string
	saver := make(chan error, 1)
	// Through an os.Root, which on Windows opens files sharing delete
	// access as Obsidian (Node) does: a program that does not share it
	// meets a sharing violation whenever another renames a file into
	// place, the moment the rename's handle is open.
	vault, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer vault.Close()
	go func() {
		for n := 0; !stop.Load(); n++ {
			var cur []byte
			err := careful(func() (err error) { cur, err = vault.ReadFile("S.md"); return err })
			if err == nil {
				line := fmt.Sprintf("saved-%d", n)
				err = careful(func() error { return vault.WriteFile("S.md", append(cur, "\n"+line+"\n"...), 0o644) })
				saved = append(saved, line)
			}
			if err != nil {
				saver <- err
				return
			}
			time.Sleep(pause)
		}
		saver <- nil
	}()
	var wg sync.WaitGroup
	var done, refused atomic.Int32
	var engines []*Engine
	// What the engines say (late saves merged) is shown should a save be
	// lost: the way it went missing is in it.
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for e := range 2 {
		v, err := Open(dir, WithLogger(logger.With("engine", e)))
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, v)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range testenv.Rounds(30, 100) {
				_, err := v.Append(t.Context(), note.ByPath("S.md"), fmt.Sprintf("ours-%d-%d", e, i), false)
				switch {
				case err == nil:
					done.Add(1)
				case errorKind(err) == "REVISION_CONFLICT":
					refused.Add(1) // the note kept changing: nothing written
				default:
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	if err := <-saver; err != nil {
		t.Fatal(err)
	}
	for _, v := range engines {
		_ = v.Close() // merges what came late into a file an append displaced
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(raw), "\n") {
		lines[l] = true
	}
	lost := 0
	for _, l := range saved {
		if !lines[l] {
			lost++
		}
	}
	t.Logf("%d saves, lost %d; our appends: %d done, %d refused as busy", len(saved), lost, done.Load(), refused.Load())
	if lost > 0 {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		var missing []string
		for _, l := range saved {
			if !lines[l] {
				missing = append(missing, l)
			}
		}
		t.Errorf("%d of the program's %d saves were lost (%v); the folder holds %v", lost, len(saved), missing, names)
		t.Logf("the note:\n%s\nthe engines' log:\n%s", raw, logs.String())
	}
	if done.Load() == 0 {
		t.Error("no append got through")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
