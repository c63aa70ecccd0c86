//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// swap puts the file at tmp in name's place by renaming it: only Linux can
// exchange two names atomically and hand back the displaced file.
func swap(root *os.Root, tmp, name string) (exchanged bool, err error) {
	return false, root.Rename(tmp, name)
}

// exchange is Linux's alone; elsewhere no file is ever parked for it (only
// Linux grants the leases that keep one).
func exchange(root *os.Root, a, b string) error {
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
}
