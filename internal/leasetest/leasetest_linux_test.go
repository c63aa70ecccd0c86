//go:build !fallback

package leasetest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSaveSeenWaitingOnALease: while a read lease is held, Save returns
// with the write waiting (the file unchanged), and the write lands once
// the lease is let go.
func TestSaveSeenWaitingOnALease(t *testing.T) {
	p := filepath.Join(t.TempDir(), "n.md")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		t.Skipf("no lease here: %v", err)
	}
	wait := Save(p, []byte("new\n"))
	if !waiting(inode(p)) {
		t.Error("the write is not seen waiting")
	}
	if got, _ := os.ReadFile(p); string(got) != "old\n" {
		t.Errorf("content %q while the lease is held", got)
	}
	f.Close()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new\n" {
		t.Errorf("content %q after the lease", got)
	}
}
