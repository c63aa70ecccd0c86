//go:build !fallback

package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// HasLeases: this build takes read leases (Linux; the fallback build tag
// turns them off, to run macOS's code paths here).
const HasLeases = true

// takeLease asks the kernel for a read lease on f, which must be open for
// reading only. Linux grants it only while no process has the file open
// for writing (leaseBusy otherwise): the precise answer to "is someone in
// the middle of saving this file?". Once it is held, any open of the file
// for writing, or a truncate, waits in the kernel until the lease is let
// go (or /proc/sys/fs/lease-break-time runs out, 45 s by default) and
// shows as a lease break (leaseBroken), so nobody can write into the file
// while this process reads it, checks it or swaps it out.
//
// The kernel refuses a lease on a file this user does not own (without
// CAP_LEASE), on file systems that do not offer leases (NFS, many FUSE
// file systems; with leases disabled by sysctl): noLease, and the caller
// falls back on watching the file's size and time.
//
// A break is signalled with SIGIO, which the Go runtime ignores unless a
// program asks for it; the lease is polled with F_GETLEASE instead.
func takeLease(f *os.File) leaseState {
	if noLeases {
		return noLease
	}
	var err error
	if cerr := control(f, func(fd uintptr) {
		_, err = unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_RDLCK)
	}); cerr != nil {
		return noLease
	}
	switch {
	case err == nil:
		return leaseHeld
	case errors.Is(err, unix.EAGAIN):
		return leaseBusy
	default:
		return noLease
	}
}

// leaseBroken reports whether another process asked to open f's file for
// writing (or to truncate it) since takeLease: it then waits for the
// lease to be let go. A lease the kernel took back after the break time
// reads the same way.
func leaseBroken(f *os.File) bool {
	kind := -1
	if err := control(f, func(fd uintptr) {
		kind, _ = unix.FcntlInt(fd, unix.F_GETLEASE, 0)
	}); err != nil {
		return true
	}
	return kind != unix.F_RDLCK
}

// dropLease lets go of f's lease: a writer waiting on it goes ahead.
// Closing f does the same.
func dropLease(f *os.File) {
	_ = control(f, func(fd uintptr) {
		_, _ = unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_UNLCK)
	})
}

// control runs fn on f's descriptor without changing its mode (Fd would
// put it in blocking mode).
func control(f *os.File, fn func(fd uintptr)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(fn)
}
