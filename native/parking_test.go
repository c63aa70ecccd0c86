package native

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"

	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestParkingFolders: the first write removes the parking folders of
// processes that are gone and keeps those of live ones (their lock is
// held), and the search index older versions kept in the vault; the
// displaced files of this process's writes are parked in its own folder,
// which Close removes.
func TestParkingFolders(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"a.md": "a\n"})
	park := filepath.Join(dir, filepath.FromSlash(parkingDir))
	dead := filepath.Join(park, "DEADDEADDEAD")
	// An index an older version kept in the vault.
	old := filepath.Join(dir, filepath.FromSlash(oldIndexDir))
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "snapshot"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(park, "LIVELIVELIVE")
	// A folder like a dead process's, but without its marker: it came
	// with the vault, and is not ours to remove.
	foreign := filepath.Join(park, "FOREIGNFOREI")
	v, err := Open(dir, WithJournalKey(filepath.Join(t.TempDir(), "key")))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dead, live, foreign} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "X7Q2MZ4KLA3B"), []byte("a\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if d != foreign {
			mark := v.parkingMark(parkingName + "/" + filepath.Base(d))
			if err := os.WriteFile(filepath.Join(d, ".owner"), mark, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	l := flock.New(filepath.Join(live, parkingLock))
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Fatalf("cannot lock the live folder: %v", err)
	}
	defer l.Close()

	if _, err := v.Append(t.Context(), note.ByPath("a.md"), "more", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the folder of a process that is gone is still there (%v)", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the index an older version kept in the vault is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(live, "X7Q2MZ4KLA3B")); err != nil {
		t.Errorf("the folder of a live process was swept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "X7Q2MZ4KLA3B")); err != nil {
		t.Errorf("a folder without this user's marker was swept: %v", err)
	}
	own := filepath.Join(dir, StateDir, filepath.FromSlash(v.parked.dir))
	if v.parked.dir == "" {
		t.Fatal("the write made no parking folder")
	}
	if atomicfile.HasLeases {
		es, _ := os.ReadDir(own)
		if len(es) != 3 { // the marker, the lock and the file the append displaced
			t.Errorf("own folder holds %d files, want the marker, the lock and the displaced note", len(es))
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("Close left this process's parking folder (%v)", err)
	}
	if got := readNote(t, dir, "a.md"); got != "a\n\nmore" {
		t.Errorf("note %q", got)
	}
}
