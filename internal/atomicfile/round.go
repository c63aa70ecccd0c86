package atomicfile

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// A round is one compare-and-swap of Update, in the steps its names tell:
//
//  1. read: the file at name, whole, under a lease where the system has
//     one (a writer's open then waits), or settled where it has none;
//  2. apply: the change, on what was read;
//  3. write: the new content to a temporary file beside the note;
//  4. exchange: a last check that name is still the file read, holding
//     what was read, then the swap (an exchange where the system has one,
//     handing back the file displaced; a rename elsewhere);
//  5. verify: the file displaced is the one read, untouched, and nobody
//     waits to write it. Then the round is done: the displaced file is
//     parked (park) while a writer that looked the name up just before
//     the swap may still write into it, or, without a lease, watched a
//     moment for an in-place save that came late (lateSave). Otherwise
//  6. merge: the swap is undone, so the other program's file is at name
//     again as it left it, and its change is merged into ours for the
//     next round.
//
// Each step says how the round goes on: to the next step, done, or again
// (another program's change was seen: the round runs again on it).
type round struct {
	root    *os.Root
	name    string
	change  Change  // the change the round began with
	changep *Change // where a merge leaves the next round's change
	res     *Updated
	pub     *Published

	f     *os.File // the file read; nil while let go during the change
	fi    fs.FileInfo
	lease leaseState
	cur   []byte // what f held
	next  []byte // what the change made of it

	tmp       string // ours before the swap; after an exchange, the file displaced
	ours      *os.File
	oursFi    fs.FileInfo
	exchanged bool
	kept      bool // f handed to pub's watch (Published.watchDisplaced)
	removeTmp bool
}

// verdict is how a step ends.
type verdict int

const (
	goOn  verdict = iota // to the next step
	again                // another program's change was seen: run the round again
	done                 // the update is complete
)

// updateOnce is one round of Update. It reports done when the update is
// complete, and false with a nil error when another program's change was
// seen and the round must be run again on it; errWriterOpen when another
// program has the file open for writing.
func updateOnce(root *os.Root, name string, changep *Change, res *Updated, pub *Published) (bool, error) {
	r := &round{root: root, name: name, change: *changep, changep: changep, res: res, pub: pub}
	defer r.close()
	for _, step := range []func() (verdict, error){r.read, r.apply, r.write, r.exchange, r.verify} {
		v, err := step()
		if err != nil {
			return false, err
		}
		if v != goOn {
			return v == done, nil
		}
	}
	return false, nil // verify always ends the round
}

// close lets go of what the round holds: ours, the temporary file unless
// it was swapped in or parked, and the file read (and its lease) unless
// pub's watch took it. Once is enough; again does nothing.
func (r *round) close() {
	if r.ours != nil {
		_ = r.ours.Close()
		r.ours = nil
	}
	if r.removeTmp {
		_ = r.root.Remove(r.tmp)
		r.removeTmp = false
	}
	if !r.kept && r.f != nil {
		_ = r.f.Close()
		r.f = nil
	}
}

// read opens the file at name and reads it whole: under a lease where
// the system has one, and where it has none only once it has settled.
func (r *round) read() (verdict, error) {
	f, fi, err := openCurrent(r.root, r.name)
	if err != nil {
		return goOn, heldUnshared(err)
	}
	r.f, r.fi = f, fi
	r.lease = takeLease(f)
	if r.lease == leaseBusy {
		return goOn, errWriterOpen
	}
	release, err := guardRead(f)
	if err != nil {
		return goOn, err
	}
	r.cur, err = readAll(f)
	release()
	if err != nil {
		return goOn, err
	}
	if r.lease == noLease {
		if len(r.cur) == 0 && midSave(f, fi) {
			return again, nil // read again once the save is done
		}
		if !r.pub.ours(r.name, fi) && !settled(f, fi) {
			return again, nil // written to while read: read it again
		}
	}
	return goOn, nil
}

// apply runs the change on what was read. A change that changes nothing
// is done; where the file read is let go while the change runs (Windows),
// it is opened again and must still be the one at name.
func (r *round) apply() (verdict, error) {
	if letGoWhileChanging {
		_ = r.f.Close()
		r.f = nil
	}
	next, err := r.change(r.cur)
	if err != nil {
		return goOn, err
	}
	r.res.Old, r.res.New = r.cur, next
	r.next = next
	if bytes.Equal(next, r.cur) {
		return done, nil
	}
	if r.f == nil {
		if r.f, err = openRead(r.root, r.name); err != nil {
			return goOn, err
		}
		if now, err := r.f.Stat(); err != nil || !os.SameFile(now, r.fi) {
			return again, nil // replaced while change ran: start over on it
		}
	}
	return goOn, nil
}

// write puts the new content in a temporary file beside name, and keeps
// a handle on it (ours) to know it again after the swap.
func (r *round) write() (verdict, error) {
	tmp, err := writeTemp(r.root, r.name, r.next, r.fi.Mode().Perm())
	if err != nil {
		return goOn, err
	}
	r.tmp, r.removeTmp = tmp, true
	if r.ours, err = r.root.Open(tmp); err != nil {
		return goOn, err
	}
	if r.oursFi, err = r.ours.Stat(); err != nil {
		return goOn, err
	}
	return goOn, nil
}

// exchange checks a last time that name is the file read and holds what
// was read, and that nobody waits to write it, then swaps ours in.
func (r *round) exchange() (verdict, error) {
	if !still(r.root, r.name, r.f, r.fi, r.cur) {
		return again, nil // changed while change ran: start over on it
	}
	if testHookBeforeSwap != nil {
		testHookBeforeSwap()
	}
	if r.lease == leaseHeld && leaseBroken(r.f) {
		// A program is waiting to write the file: let it (the close lets
		// go of the lease), and start over on what it wrote.
		return again, nil
	}
	exchanged, err := swap(r.root, r.tmp, r.name, &r.f, r.cur)
	if errors.Is(err, errChanged) {
		return again, nil // changed at the last look before the swap: start over
	}
	if err != nil {
		return goOn, err
	}
	if testHookAfterSwap != nil {
		testHookAfterSwap()
	}
	r.exchanged = exchanged
	if !exchanged {
		// tmp was renamed onto name: nothing is left at tmp to remove.
		r.removeTmp = false
	}
	return goOn, nil
}

// verify looks at what the swap displaced. A rename displaced nothing we
// can see (renamedOver). After an exchange tmp names the file that was at
// name: when it is the file read, untouched, and nobody waits to write
// it, the round is done (park, lateSave); otherwise another program
// reached the file between the check and the swap (merge).
func (r *round) verify() (verdict, error) {
	if !r.exchanged {
		v, err := renamedOver(r.root, r.name, r.f, r.cur, r.ours, r.oursFi, r.next, r.lease, r.changep, r.res, r.pub)
		return verdictOf(v, err)
	}
	shown, err := r.root.Lstat(r.tmp)
	displaced := err == nil && os.SameFile(shown, r.fi)
	switch {
	case displaced && r.lease == leaseHeld && !leaseBroken(r.f):
		return r.park()
	case displaced && r.lease == noLease && same(r.f, r.cur):
		return r.lateSave()
	}
	return r.merge()
}

// verdictOf is a step's verdict from an old-style (done, err) answer.
func verdictOf(ok bool, err error) (verdict, error) {
	switch {
	case err != nil:
		return goOn, err
	case ok:
		return done, nil
	}
	return again, nil
}

// published syncs the note's folder and tells pub the file at name is
// ours: the round is done.
func (r *round) published() (verdict, error) {
	syncDir(r.root, path.Dir(r.name))
	r.pub.Add(r.root, r.name)
	return done, nil
}

// park ends a clean exchange under a lease. Nobody asked to write the
// file displaced since it was read, but a program that looked the name up
// just before the swap may still be on its way to the open's lease check,
// and would then write into the file displaced: pub keeps the lease on
// it a while longer and merges such a late save (watchDisplaced).
func (r *round) park() (verdict, error) {
	syncDir(r.root, path.Dir(r.name))
	r.pub.Add(r.root, r.name)
	r.kept = r.pub.watchDisplaced(r.root, r.name, r.tmp, r.f, r.cur)
	r.removeTmp = !r.kept // parked or removed by the watch
	return done, nil
}

// lateSave ends a clean exchange without a lease. A program saving in
// place that opened the old file just before the swap writes into it a
// moment later, into a file about to be removed (a stress test lost 1
// save in ten thousand so): a file changed within saveGap is watched a
// moment longer, and what was written into it is merged into ours on the
// next round.
func (r *round) lateSave() (verdict, error) {
	if testHookAfterCheck != nil {
		testHookAfterCheck()
	}
	if recent(r.fi) {
		time.Sleep(settleStep)
	}
	if same(r.f, r.cur) {
		return r.published()
	}
	// Their save may still be under way: it is read once it has settled
	// (a truncated file half written would merge as lines deleted).
	for deadline := time.Now().Add(saveGap); time.Now().Before(deadline); {
		if now, err := r.f.Stat(); err == nil && now.Size() > 0 && settled(r.f, now) {
			break
		}
		time.Sleep(settleStep)
	}
	theirs, err := readAll(r.f)
	if err != nil {
		return goOn, err
	}
	if len(theirs) == 0 {
		// Emptied and never written: no save to keep.
		return r.published()
	}
	// Their save was hidden behind ours since the swap (hidden.go).
	if _, ok := merge3(r.cur, theirs, r.next); !ok {
		// Their save and ours change the same lines: theirs, the later,
		// is put back at name, and the update gives up.
		if err := swapBack(r.root, r.tmp, r.name, &r.ours); err != nil {
			return goOn, err
		}
		r.pub.keepHidden(r.root, r.name, r.cur, theirs, r.next)
		return goOn, &fs.PathError{Op: "update", Path: r.name, Err: ErrBusy}
	}
	r.pub.keepHidden(r.root, r.name, r.cur, theirs, r.next)
	*r.changep = mergeInto(r.cur, theirs)
	r.res.carrying, r.res.carried = true, theirs
	return again, nil
}

// merge undoes a swap that displaced another program's file (replaced or
// changed between the check and the swap, or with a writer waiting to
// write it): its file is at name again, untouched, and what it wrote is
// merged into ours for the next round, line by line; what cannot be
// merged is kept whole (union), never removed unread.
func (r *round) merge() (verdict, error) {
	// Another program replaced or changed the file between the check and
	// the swap, or (with a lease) waits to write the file displaced, having
	// looked its name up before the swap. Swap back, so its file is at
	// name again, untouched, and the waiting writer writes there. Its save
	// was hidden behind ours till then: whoever read the note meanwhile
	// built on ours, so the note is watched a while (hidden.go).
	hid, _ := r.root.ReadFile(r.tmp)
	if err := swapBack(r.root, r.tmp, r.name, &r.ours); err != nil {
		return goOn, err
	}
	r.pub.keepHidden(r.root, r.name, r.cur, hid, r.next)
	if r.lease != noLease {
		// A program that opened ours while it was at name may still be
		// writing into it: opened (and so truncated), its save not yet
		// written. Read then, ours looked emptied, and the save that
		// landed in it after the read was removed with it (1 save in
		// about 1,200 runs of the saver test beside CPU hogs). Its
		// writers are waited for, as a lease on it tells.
		_ = awaitClose(r.ours)
	}
	back, errB := r.root.Lstat(r.tmp)
	if errB != nil || !os.SameFile(back, r.oursFi) || !same(r.ours, r.next) {
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
		theirs, errT := readAll(r.f)
		later, errL := readAll(r.ours)
		var third []byte
		if errB == nil && !os.SameFile(back, r.oursFi) {
			third, errB = r.root.ReadFile(r.tmp)
		}
		if errT == nil && errL == nil && errB == nil {
			merged, ok := merge3(r.cur, theirs, later)
			if ok && third != nil {
				merged, ok = merge3(r.cur, merged, third)
			}
			if ok {
				*r.changep = mergeInto(theirs, merged)
				// The file displaced holds their later save: it lives on
				// in merged alone, so the update must not give up early.
				if !bytes.Equal(later, r.next) || third != nil {
					r.res.carrying, r.res.carried = true, merged
				}
				return again, nil
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
		if newer(r.root, r.tmp, r.name) {
			_, _ = swap(r.root, r.tmp, r.name, &r.f, nil)
		}
		var other []byte
		if left, err := r.root.Lstat(r.tmp); err == nil && !os.SameFile(left, r.oursFi) {
			if data, err := r.root.ReadFile(r.tmp); err == nil {
				other = data
			}
		} else if !bytes.Equal(later, r.next) && errL == nil {
			other = later
		}
		if other != nil {
			change := r.change
			*r.changep = func(now []byte) ([]byte, error) { return change(union(now, other)) }
			r.res.carrying, r.res.carried = true, other
			return again, nil
		}
		return goOn, &fs.PathError{Op: "update", Path: r.name, Err: ErrBusy}
	}
	return again, nil
}
