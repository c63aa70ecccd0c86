//go:build (!linux && !windows) || fallback

package atomicfile

import (
	"errors"
	"os"
)

// exchanges: a swap is a rename; nothing is handed back.
const exchanges = false

// letGoWhileChanging: the file read stays open while the change runs (see
// swap_windows.go for why Windows lets go).
const letGoWhileChanging = false

// NameGaps: a rename over the note never leaves it without its name.
const NameGaps = false

// swap puts the file at tmp in name's place by renaming it: only Linux can
// exchange two names atomically and hand back the displaced file.
func swap(root *os.Root, tmp, name string, _ **os.File, _ []byte) (exchanged bool, err error) {
	return false, root.Rename(tmp, name)
}

// heldUnshared: only Windows refuses an open because another program
// holds the file (swap_windows.go).
func heldUnshared(err error) error { return err }

// renameOver replaces name with tmp: a plain rename.
func renameOver(root *os.Root, tmp, name string) error { return root.Rename(tmp, name) }

// exchange is Linux's alone; elsewhere no file is ever parked for it (only
// Linux grants the leases that keep one).
func exchange(root *os.Root, a, b string) error {
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
}
