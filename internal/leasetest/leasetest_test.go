package leasetest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSaveWithoutALease: with nobody holding a lease, Save returns with the
// write done.
func TestSaveWithoutALease(t *testing.T) {
	p := filepath.Join(t.TempDir(), "n.md")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Save(p, []byte("new\n"))(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new\n" {
		t.Errorf("content %q", got)
	}
}
