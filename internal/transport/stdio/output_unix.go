//go:build unix

package stdio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// OutputClosed reports whether w is a pipe or socket whose reader has gone:
// poll flags POLLERR (pipe) or POLLHUP (socket) on it. Anything else counts
// as open.
func OutputClosed(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	conn, err := f.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	_ = conn.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd)}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			closed = fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		}
	})
	return closed
}
