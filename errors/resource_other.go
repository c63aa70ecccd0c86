//go:build !unix

package errors

import "syscall"

// Windows' codes for a full disk (ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL)
// and for no handles left (ERROR_TOO_MANY_OPEN_FILES).
const (
	errorTooManyOpenFiles syscall.Errno = 4
	errorHandleDiskFull   syscall.Errno = 39
	errorDiskFull         syscall.Errno = 112
)

// resourceKind names a system error that is about the machine's resources
// rather than the request: a full disk, no handles left.
func resourceKind(err error) (Kind, bool) {
	switch {
	case Is(err, errorDiskFull), Is(err, errorHandleDiskFull), Is(err, syscall.ENOSPC):
		return DiskFull, true
	case Is(err, errorTooManyOpenFiles), Is(err, syscall.EMFILE):
		return TooManyFiles, true
	}
	return "", false
}
