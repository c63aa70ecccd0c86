//go:build !fallback

package atomicfile

import (
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// exchanges: a swap hands back the file it displaced.
const exchanges = true

// letGoWhileChanging: the file read stays open while the change runs (a
// lease is held on it; see swap_windows.go for why Windows lets go).
const letGoWhileChanging = false

// NameGaps: an exchange never leaves the note without its name.
const NameGaps = false

// swap puts the file at tmp in name's place. It exchanges the two names
// atomically where the file system can, so that tmp then names the file
// that was displaced, and reports exchanged; elsewhere it renames.
func swap(root *os.Root, tmp, name string, _ **os.File, _ []byte) (exchanged bool, err error) {
	// Through a descriptor of the folder opened inside root, so that the
	// exchange cannot leave it whatever symlinks the path holds.
	dir, err := root.Open(path.Dir(name))
	if err != nil {
		return false, err
	}
	defer dir.Close()
	fd := int(dir.Fd())
	err = unix.Renameat2(fd, path.Base(tmp), fd, path.Base(name), unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		// Not on this file system or kernel (before 3.15).
		return false, root.Rename(tmp, name)
	default:
		return false, &os.LinkError{Op: "exchange", Old: tmp, New: name, Err: err}
	}
}

// heldUnshared: only Windows refuses an open because another program
// holds the file (swap_windows.go).
func heldUnshared(err error) error { return err }

// renameOver replaces name with tmp: a plain rename.
func renameOver(root *os.Root, tmp, name string) error { return root.Rename(tmp, name) }

// exchange swaps the files at a and b, folders of root both, atomically.
func exchange(root *os.Root, a, b string) error {
	da, err := root.Open(path.Dir(a))
	if err != nil {
		return err
	}
	defer da.Close()
	db, err := root.Open(path.Dir(b))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := unix.Renameat2(int(da.Fd()), path.Base(a), int(db.Fd()), path.Base(b), unix.RENAME_EXCHANGE); err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
