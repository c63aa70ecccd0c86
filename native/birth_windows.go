package native

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// birthTime is the file's creation time.
func birthTime(_ *os.File, fi fs.FileInfo) time.Time {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return time.Time{}
	}
	return time.Unix(0, d.CreationTime.Nanoseconds())
}
