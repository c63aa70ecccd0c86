//go:build unix

package errors

import "syscall"

// resourceKind names a system error that is about the machine's resources
// rather than the request: a full disk or quota, no file descriptors left.
func resourceKind(err error) (Kind, bool) {
	switch {
	case Is(err, syscall.ENOSPC), Is(err, syscall.EDQUOT):
		return DiskFull, true
	case Is(err, syscall.EMFILE), Is(err, syscall.ENFILE):
		return TooManyFiles, true
	}
	return "", false
}
