//go:build !unix

package native

import "io/fs"

// fileID is unknown here (Windows gives a file's index only to an open
// handle, which would cost an open per note); size and time still tell.
func fileID(fs.FileInfo) uint64 { return 0 }

// noFollow and nonBlock have no equivalent to ask for here; os.Root still
// keeps every name inside its folder, and Windows has no FIFOs in the
// file system.
const (
	noFollow = 0
	nonBlock = 0
)
