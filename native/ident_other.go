//go:build !unix

package native

import "io/fs"

// fileID is unknown here (Windows gives a file's index only to an open
// handle, which would cost an open per note); size and time still tell.
func fileID(fs.FileInfo) uint64 { return 0 }
