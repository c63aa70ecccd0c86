package atomicfile

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// maxRounds bounds how often Update starts over because another program
// changed the file under it.
const maxRounds = 20

// ErrBusy is returned when the file kept changing under Update for
// maxRounds rounds; nothing of the update was kept.
var ErrBusy = errors.New("the file kept changing while it was being updated")

// Change computes a file's new content from its current content. Returning
// the content unchanged writes nothing; returning an error writes nothing
// and ends the update with that error.
type Change func(current []byte) ([]byte, error)

// Updated is what an Update did.
type Updated struct {
	// Old is the content change was last applied to, New what it returned
	// (and what the file now holds).
	Old, New []byte
	// Rounds counts how often change was called: more than 1 when another
	// program changed the file between a read and the write.
	Rounds int
}

// testHookBeforeSwap, when set by a test, runs between the last check of
// the file and the swap that replaces it: the one window no check covers.
var testHookBeforeSwap func()

// Update replaces name's content with change(current), atomically (readers
// see the old or the new file, never a mix), keeping its mode, and without
// losing a write another program makes meanwhile: Obsidian saving the note,
// a sync client, an editor.
//
// The write is a compare-and-swap. The new content goes to a temporary
// file, the file at name is checked to still be the one read, and the
// temporary file is swapped in. Where the system can exchange two names
// atomically (Linux renameat2 RENAME_EXCHANGE), the swap hands back the
// file it displaced, so a change that lands between the check and the swap
// is seen too: that file is put back, exactly as its writer left it, and
// the update starts over on it. Elsewhere the swap is a rename, and only
// changes made in place to the old file are seen after it; a replacement
// by rename in the microseconds between the check and our own rename is
// the one case left uncovered.
//
// Update is safe against programs that take no lock only; two Updates of
// one file must not overlap (their exchanges and swaps back could then
// build on each other's discarded content). Callers serialise them: the
// vault engine holds its cross-process write lock around every write.
func Update(root *os.Root, name string, change Change) (Updated, error) {
	var res Updated
	for res.Rounds < maxRounds {
		res.Rounds++
		done, err := updateOnce(root, name, change, &res)
		if done || err != nil {
			return res, err
		}
	}
	return res, &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
}

// updateOnce is one round of Update. It reports done when the update is
// complete, and false with a nil error when another program's change was
// seen and the round must be run again on it.
func updateOnce(root *os.Root, name string, change Change, res *Updated) (bool, error) {
	f, fi, cur, err := openCurrent(root, name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	next, err := change(cur)
	if err != nil {
		return false, err
	}
	res.Old, res.New = cur, next
	if bytes.Equal(next, cur) {
		return true, nil
	}
	tmp, err := writeTemp(root, name, next, fi.Mode().Perm())
	if err != nil {
		return false, err
	}
	removeTmp := true
	defer func() {
		if removeTmp {
			_ = root.Remove(tmp)
		}
	}()
	ours, err := root.Open(tmp)
	if err != nil {
		return false, err
	}
	defer ours.Close()
	oursFi, err := ours.Stat()
	if err != nil {
		return false, err
	}
	if !still(root, name, f, fi, cur) {
		return false, nil // changed while change ran: start over on it
	}
	if testHookBeforeSwap != nil {
		testHookBeforeSwap()
	}
	exchanged, err := swap(root, tmp, name)
	if err != nil {
		return false, err
	}
	if !exchanged {
		// tmp was renamed onto name: nothing is left at tmp to remove.
		removeTmp = false
		if same(f, cur) {
			syncDir(root, path.Dir(name))
			return true, nil
		}
		// Written in place to the old file after the check: bring that
		// content back, over ours unless something replaced ours too.
		theirs, err := readAll(f)
		if err != nil {
			return false, err
		}
		if !still(root, name, ours, oursFi, next) {
			return false, &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
		}
		return false, Replace(root, name, theirs)
	}
	// tmp now names the file that was at name when we swapped.
	if shown, err := root.Lstat(tmp); err == nil && os.SameFile(shown, fi) && same(f, cur) {
		syncDir(root, path.Dir(name))
		return true, nil
	}
	// Another program replaced or changed the file between the check and
	// the swap. Swap back, so its file is at name again, untouched.
	if _, err := swap(root, tmp, name); err != nil {
		return false, err
	}
	if back, err := root.Lstat(tmp); err != nil || !os.SameFile(back, oursFi) || !same(ours, next) {
		// A third write replaced ours within microseconds. Let the latest
		// write stand, as it would have without us, and give up.
		_, _ = swap(root, tmp, name)
		return false, &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
	}
	return false, nil
}

// openCurrent opens name, which must be a regular file its owner may
// write, and reads it.
func openCurrent(root *os.Root, name string) (*os.File, fs.FileInfo, []byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "update", Path: name, Err: errors.New("not a regular file")}
	}
	if err == nil && fi.Mode().Perm()&0o200 == 0 {
		// A rename would replace a read-only file, which a write could not.
		err = &fs.PathError{Op: "update", Path: name, Err: fs.ErrPermission}
	}
	var cur []byte
	if err == nil {
		cur, err = readAll(f)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, nil, err
	}
	return f, fi, cur, nil
}

// still reports whether name is still the file f (described by fi) and f
// still holds want.
func still(root *os.Root, name string, f *os.File, fi fs.FileInfo, want []byte) bool {
	// Content first, then identity: the identity check is the cheaper one,
	// so it sits closest to the swap that follows.
	if !same(f, want) {
		return false
	}
	now, err := root.Lstat(name)
	return err == nil && os.SameFile(now, fi)
}

// same reports whether f holds exactly want.
func same(f *os.File, want []byte) bool {
	got, err := readAll(f)
	return err == nil && bytes.Equal(got, want)
}

// readAll reads the whole of f from its start, whatever its offset.
func readAll(f *os.File) ([]byte, error) {
	return io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
}
