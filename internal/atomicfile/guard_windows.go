package atomicfile

import (
	"os"

	"golang.org/x/sys/windows"
)

var procReOpenFile = windows.NewLazySystemDLL("kernel32.dll").NewProc("ReOpenFile")

// guardRead keeps writers out of f while it is read, and says when one is
// in it: a second handle on the file that shares reading and deleting but
// not writing cannot be opened while another program has the file open
// for writing (a sharing violation: errWriterOpen, waited for), and while
// it is open no program can open the file for writing. That is the
// precise signal Windows offers where Linux has leases: a note read so is
// never a save half written. The guard is let go of (release) as soon as
// the read is done: a writer refused meanwhile meets a sharing violation,
// for as long as a read takes, as it would from any program that reads
// files so (backup tools, indexers).
func guardRead(f *os.File) (release func(), err error) {
	h, _, callErr := procReOpenFile.Call(f.Fd(), windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_DELETE, 0)
	if windows.Handle(h) == windows.InvalidHandle {
		if err := heldUnshared(callErr); err == errWriterOpen {
			return nil, err
		}
		// A file system that cannot open a file twice so: read as
		// elsewhere, its size and time watched (saving.go).
		return func() {}, nil
	}
	return func() { _ = windows.CloseHandle(windows.Handle(h)) }, nil
}
