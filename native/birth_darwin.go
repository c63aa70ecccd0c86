package native

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// birthTime is the file's creation time.
func birthTime(_ *os.File, fi fs.FileInfo) time.Time {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}
	}
	return time.Unix(st.Birthtimespec.Unix())
}
