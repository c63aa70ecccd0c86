//go:build unix

package native

import (
	"io/fs"
	"syscall"
)

// fileID is the file's inode number: a file replaced by another (a sync
// tool's rename over it) gets a new one even with the same size and time.
func fileID(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// noFollow makes an open fail on a symlink in the last place of the path:
// the state folder's files are never reached through one. nonBlock keeps
// an open of a FIFO from waiting for a writer (it is then refused as not
// a regular file).
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)
