package atomicfile

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// maxRounds bounds how often Update starts over because another program
// changed the file under it.
const maxRounds = 20

// errChanged is a swap that found the file changed at its last look (the
// Windows swap looks again after each step that can wait: swap_windows.go):
// nothing was swapped, and the round starts over.
var errChanged = errors.New("the file changed before the swap")

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
	// carrying: the change now holds another program's save, found only
	// in a file this update displaced (carried); giving up would lose it.
	carrying bool
	carried  []byte
}

// carryBudget bounds how long Update keeps trying while it carries
// another program's save (Updated.carrying) before it gives up; each
// round then waits a moment, so that a program saving again and again
// leaves it a quiet window.
const carryBudget = 10 * time.Second

// testHookBeforeSwap, when set by a test, runs between the last check of
// the file and the swap that replaces it: the one window no check covers;
// testHookAfterSwap runs right after the swap, testHookAfterCheck once
// the swap was found clean.
var testHookBeforeSwap, testHookAfterSwap, testHookAfterCheck func()

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
	return UpdateKnown(root, name, change, nil)
}

// UpdateKnown is Update remembering in pub the files it publishes: a file
// changed moments ago is first watched for a moment, in case another
// program is still saving it in place, unless pub knows it as this
// process's own (see settled). pub matters only where the system has no
// leases (takeLease).
//
// A file another program has open for writing is waited for (writerWait
// at most, then ErrBusy) and never read until that program closes it. An
// update that gives up while it carries another program's save found only
// in a file it displaced keeps that save in a conflict copy beside the
// note (ConflictCopy) rather than drop it.
func UpdateKnown(root *os.Root, name string, change Change, pub *Published) (Updated, error) {
	var res Updated
	err := updateCarrying(root, name, change, &res, pub)
	return res, err
}

// updateCarrying is UpdateKnown's loop, on a res that may already carry
// another program's save (a late one: displaced.go).
func updateCarrying(root *os.Root, name string, change Change, res *Updated, pub *Published) error {
	start := time.Now()
	pause := time.Millisecond
	for res.Rounds < maxRounds || res.carrying && time.Since(start) < carryBudget {
		if res.carrying && res.Rounds > 0 {
			time.Sleep(time.Duration(1+rand.IntN(4)) * time.Millisecond)
		}
		res.Rounds++
		done, err := updateOnce(root, name, &change, res, pub)
		if errors.Is(err, errWriterOpen) {
			// Not a round: nothing was read. The writer's close is what
			// we wait for; the pause only paces the asking.
			res.Rounds--
			if time.Since(start) >= writerWait {
				break
			}
			if testHookWriterOpen != nil {
				testHookWriterOpen()
			}
			time.Sleep(pause)
			pause = min(2*pause, maxPause)
			continue
		}
		if done || err == nil {
			if done {
				return nil
			}
			continue
		}
		if errors.Is(err, ErrBusy) {
			break
		}
		return err
	}
	return giveUp(root, name, res.carried)
}

// swapBack exchanges tmp and name again, after an exchange that displaced
// another program's save: the save is at name again, ours at tmp. held is
// our handle on the file at name (Windows closes it for the rename and
// opens it again at tmp). Should the exchange fail (on Windows, the note
// held open by another program past writerWait), the file at tmp, the
// other program's save, is kept in a conflict copy beside the note rather
// than removed as a temporary file.
func swapBack(root *os.Root, tmp, name string, held **os.File) error {
	_, err := swap(root, tmp, name, held, nil)
	if err == nil {
		return nil
	}
	if data, rerr := root.ReadFile(tmp); rerr == nil {
		if cp, cerr := keepCopy(root, name, data); cerr == nil {
			return &fs.PathError{Op: "update", Path: name, Err: &ConflictCopy{Path: cp}}
		}
	}
	return err
}

// renamedOver ends a round whose swap was a rename (no exchange on this
// system): the file read (f, with cur) is gone from the folder, ours
// (with next) is at name.
func renamedOver(root *os.Root, name string, f *os.File, cur []byte, ours *os.File, oursFi fs.FileInfo, next []byte, lease leaseState, changep *Change, res *Updated, pub *Published) (bool, error) {
	if f == nil {
		// Nothing of the displaced file is left to read (Windows on a
		// file system without hard links: swap_windows.go).
		syncDir(root, path.Dir(name))
		pub.Add(root, name)
		return true, nil
	}
	if lease == leaseHeld {
		if !leaseBroken(f) {
			syncDir(root, path.Dir(name))
			pub.Add(root, name)
			return true, nil
		}
		// A program waits to write the file our rename took away: let it
		// write, then take what it wrote into ours.
		dropLease(f)
		if !awaitClose(f) {
			return false, &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
		}
	} else if same(f, cur) {
		syncDir(root, path.Dir(name))
		pub.Add(root, name)
		return true, nil
	}
	// Written in place to the old file after the check: bring that
	// content back, merged with ours when they touch different lines.
	theirs, err := readAll(f)
	if err != nil {
		return false, err
	}
	if bytes.Equal(theirs, cur) {
		syncDir(root, path.Dir(name))
		pub.Add(root, name)
		return true, nil
	}
	// Their save lives in the displaced file alone now: it is merged into
	// whatever the note holds by the next round, even when another write
	// reached ours since (giving up then lost it from the note: 1 save in
	// about 300 of a saver every 20 ms under Wine).
	*changep = mergeInto(cur, theirs)
	res.carrying, res.carried = true, theirs
	pub.keepHidden(root, name, cur, theirs, next) // hidden behind ours since the rename
	return false, nil
}

// openCurrent opens name, which must be a regular file its owner may
// write.
func openCurrent(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := openRead(root, name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "update", Path: name, Err: ErrNotRegular}
	}
	if err == nil && fi.Mode().Perm()&0o200 == 0 {
		// A rename would replace a read-only file, which a write could not.
		err = &fs.PathError{Op: "update", Path: name, Err: fs.ErrPermission}
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
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
