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

// updateOnce is one round of Update. It reports done when the update is
// complete, and false with a nil error when another program's change was
// seen and the round must be run again on it; errWriterOpen when another
// program has the file open for writing.
func updateOnce(root *os.Root, name string, changep *Change, res *Updated, pub *Published) (bool, error) {
	change := *changep
	f, fi, err := openCurrent(root, name)
	if err != nil {
		return false, heldUnshared(err)
	}
	kept := false // f handed to pub's watch (Published.watchDisplaced)
	defer func() {
		if !kept {
			_ = f.Close() // lets go of the lease too
		}
	}()
	lease := takeLease(f)
	if lease == leaseBusy {
		return false, errWriterOpen
	}
	release, err := guardRead(f)
	if err != nil {
		return false, err
	}
	cur, err := readAll(f)
	release()
	if err != nil {
		return false, err
	}
	if lease == noLease {
		if len(cur) == 0 && midSave(f, fi) {
			return false, nil // read again once the save is done
		}
		if !pub.ours(name, fi) && !settled(f, fi) {
			return false, nil // written to while read: read it again
		}
	}
	if letGoWhileChanging {
		_ = f.Close()
		f = nil
	}
	next, err := change(cur)
	if err != nil {
		return false, err
	}
	res.Old, res.New = cur, next
	if bytes.Equal(next, cur) {
		return true, nil
	}
	if f == nil {
		if f, err = openRead(root, name); err != nil {
			return false, err
		}
		if now, err := f.Stat(); err != nil || !os.SameFile(now, fi) {
			return false, nil // replaced while change ran: start over on it
		}
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
	if lease == leaseHeld && leaseBroken(f) {
		// A program is waiting to write the file: let it (the deferred
		// close lets go of the lease), and start over on what it wrote.
		return false, nil
	}
	exchanged, err := swap(root, tmp, name, &f, cur)
	if errors.Is(err, errChanged) {
		return false, nil // changed at the last look before the swap: start over
	}
	if err != nil {
		return false, err
	}
	if testHookAfterSwap != nil {
		testHookAfterSwap()
	}
	if !exchanged {
		// tmp was renamed onto name: nothing is left at tmp to remove.
		removeTmp = false
		return renamedOver(root, name, f, cur, ours, oursFi, next, lease, changep, res, pub)
	}
	// tmp now names the file that was at name when we swapped.
	shown, err := root.Lstat(tmp)
	displaced := err == nil && os.SameFile(shown, fi)
	if displaced && lease == leaseHeld && !leaseBroken(f) {
		// Nobody asked to write the file displaced since it was read. A
		// program that looked the name up just before the swap may still
		// be on its way to the open's lease check, and would then write
		// into the file displaced: pub keeps the lease on it a while
		// longer and merges such a late save (watchDisplaced).
		syncDir(root, path.Dir(name))
		pub.Add(root, name)
		kept = pub.watchDisplaced(root, name, tmp, f, cur)
		removeTmp = !kept // parked or removed by the watch
		return true, nil
	}
	if displaced && lease == noLease && same(f, cur) {
		// A program saving in place that opened the old file just before
		// the swap writes into it a moment later, into a file about to be
		// removed (a stress test lost 1 save in ten thousand so): a file
		// changed within saveGap is watched a moment longer, and what was
		// written into it is merged into ours on the next round.
		if testHookAfterCheck != nil {
			testHookAfterCheck()
		}
		if recent(fi) {
			time.Sleep(settleStep)
		}
		if same(f, cur) {
			syncDir(root, path.Dir(name))
			pub.Add(root, name)
			return true, nil
		}
		// Their save may still be under way: it is read once it has
		// settled (a truncated file half written would merge as lines
		// deleted).
		for deadline := time.Now().Add(saveGap); time.Now().Before(deadline); {
			if now, err := f.Stat(); err == nil && now.Size() > 0 && settled(f, now) {
				break
			}
			time.Sleep(settleStep)
		}
		theirs, err := readAll(f)
		if err != nil {
			return false, err
		}
		if len(theirs) == 0 {
			// Emptied and never written: no save to keep.
			syncDir(root, path.Dir(name))
			pub.Add(root, name)
			return true, nil
		}
		if _, ok := merge3(cur, theirs, next); !ok {
			// Their save and ours change the same lines: theirs, the later,
			// is put back at name, and the update gives up.
			if err := swapBack(root, tmp, name, &ours); err != nil {
				return false, err
			}
			return false, &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
		}
		*changep = mergeInto(cur, theirs)
		res.carrying, res.carried = true, theirs
		return false, nil
	}
	// Another program replaced or changed the file between the check and
	// the swap, or (with a lease) waits to write the file displaced, having
	// looked its name up before the swap. Swap back, so its file is at
	// name again, untouched, and the waiting writer writes there.
	if err := swapBack(root, tmp, name, &ours); err != nil {
		return false, err
	}
	if lease != noLease {
		// A program that opened ours while it was at name may still be
		// writing into it: opened (and so truncated), its save not yet
		// written. Read then, ours looked emptied, and the save that
		// landed in it after the read was removed with it (1 save in
		// about 1,200 runs of the saver test beside CPU hogs). Its
		// writers are waited for, as a lease on it tells.
		_ = awaitClose(ours)
	}
	back, errB := root.Lstat(tmp)
	if errB != nil || !os.SameFile(back, oursFi) || !same(ours, next) {
		// Another write reached the file at name while ours was there: a
		// program replaced it, or wrote into it in place. Both files may
		// now hold writes of others: an in-place writer that opened the
		// old file just before the swap wrote into it, then read ours and
		// wrote into that (a stress test lost 1 save in ten thousand so).
		// And a program that renames its saves over the note twice in
		// that moment leaves a third file where ours was (the swap back
		// handed back its newer save, and put its older one at name):
		// that file is someone's save too, never removed unread.
		// Their changes and ours are merged line by line when they touch
		// different lines (two insertions at one place keep both, the
		// earlier write's first). The merge is written as any change is,
		// by compare-and-swap against the file now at name (the old one,
		// put back), which the writer may go on changing: the next rounds
		// bring what it wrote there since into the merge too.
		theirs, errT := readAll(f)
		later, errL := readAll(ours)
		var third []byte
		if errB == nil && !os.SameFile(back, oursFi) {
			third, errB = root.ReadFile(tmp)
		}
		if errT == nil && errL == nil && errB == nil {
			merged, ok := merge3(cur, theirs, later)
			if ok && third != nil {
				merged, ok = merge3(cur, merged, third)
			}
			if ok {
				*changep = mergeInto(theirs, merged)
				// The file displaced holds their later save: it lives on
				// in merged alone, so the update must not give up early.
				if !bytes.Equal(later, next) || third != nil {
					res.carrying, res.carried = true, merged
				}
				return false, nil
			}
		}
		// Changes to the same lines cannot be merged: the file changed
		// last stays at name, the one at name on a tie (writers act on
		// the name). Always keeping the file at tmp once put back a file a
		// second old, losing everything saved since. A file left at tmp
		// that is not ours, or ours written into, is someone's save: its
		// lines are taken into the note with every line of both kept
		// (union, as a late save is: displaced.go), and the change is made
		// on top. Giving up with it in a conflict copy let the writer go on
		// from the note without that save, which then lived in the copy
		// alone (1 save in about 400 runs beside CPU hogs).
		if newer(root, tmp, name) {
			_, _ = swap(root, tmp, name, &f, nil)
		}
		var other []byte
		if left, err := root.Lstat(tmp); err == nil && !os.SameFile(left, oursFi) {
			if data, err := root.ReadFile(tmp); err == nil {
				other = data
			}
		} else if !bytes.Equal(later, next) && errL == nil {
			other = later
		}
		if other != nil {
			*changep = func(now []byte) ([]byte, error) { return change(union(now, other)) }
			res.carrying, res.carried = true, other
			return false, nil
		}
		return false, &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
	}
	return false, nil
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
