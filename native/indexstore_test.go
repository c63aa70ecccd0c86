package native

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestScratchFile: the index's scratch file (its phrase positions) can be
// written and read back, has no name in the index folder where the system
// allows it, and one left there by a process gone is removed.
func TestScratchFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	s := newIndexStore(dir)
	f, err := s.ScratchFile()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("positions"), 0); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 9)
	if _, err := f.ReadAt(got, 0); err != nil || string(got) != "positions" {
		t.Fatalf("read back %q, %v", got, err)
	}
	left := filepath.Join(dir, scratchPrefix+"gone")
	if err := os.WriteFile(left, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := s.ScratchFile()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		if e.Name() == filepath.Base(left) {
			t.Errorf("%s, left by a process gone, is still there", e.Name())
		} else if runtime.GOOS != "windows" && len(e.Name()) > len(scratchPrefix) && e.Name()[:len(scratchPrefix)] == scratchPrefix {
			t.Errorf("%s has a name in the folder", e.Name())
		}
	}
}
