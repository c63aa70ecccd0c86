package native

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// birthTime is the file's creation time where the file system records it
// (statx), else zero.
func birthTime(f *os.File, _ fs.FileInfo) time.Time {
	var st unix.Statx_t
	if err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}
	}
	return time.Unix(st.Btime.Sec, int64(st.Btime.Nsec))
}
