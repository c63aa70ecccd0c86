//go:build unix

package errors

import (
	"io/fs"
	"syscall"
	"testing"
)

// TestResourceKinds: a full disk or quota and no descriptors left get
// their own codes, not INTERNAL_ERROR (every write error on a full disk
// came back as INTERNAL_ERROR).
func TestResourceKinds(t *testing.T) {
	for errno, want := range map[syscall.Errno]Kind{
		syscall.ENOSPC: DiskFull, syscall.EDQUOT: DiskFull,
		syscall.EMFILE: TooManyFiles, syscall.ENFILE: TooManyFiles,
	} {
		err := &fs.PathError{Op: "write", Path: "a.md", Err: errno}
		if got := From(err); got.Kind != want || got.Hint == "" {
			t.Errorf("%v: %s (hint %q), want %s with a hint", errno, got.Kind, got.Hint, want)
		}
	}
	if k, ok := Resource(&fs.PathError{Op: "open", Path: "a.md", Err: syscall.EACCES}); ok {
		t.Errorf("EACCES taken for a resource error (%s)", k)
	}
}
