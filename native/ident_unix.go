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
