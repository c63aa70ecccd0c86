package atomicfile

import (
	"bytes"
	"os"
	"sync"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"
)

// A program saving in place resolves the note's name to a file and only
// then, inside the same open(2), reaches the lease check. One that looked
// the name up just before an update's swap, and was kept off the CPU
// until after the update let its lease go, would write into the file the
// swap displaced, which no name leads to any more (a stress test beside
// CPU hogs lost 4 saves in 100 runs so). The kernel offers no signal for
// an open under way; what it does offer is the lease break that open
// will cause. So the update leaves the displaced file at its temporary
// name, lease held, to its Published, which keeps it for displacedWatch.
// An open reaching it then breaks the lease, and the watch (under the
// vault's write lock: SetLock) puts the file back at the note's name
// before it lets the writer in: the writer saves where it meant to, and
// its next read finds its save (merging the save into the note later let
// a writer that reads again at once build on a note without its own last
// save). What the exchange took from the name is merged into the save once
// the writer has closed the file, every line of both kept where they
// conflict (takeLate).

// displacedWatch is how long a displaced file is kept under lease: far
// longer than any open is kept off the CPU by a busy machine.
const displacedWatch = 2 * time.Second

// maxWatched bounds the displaced files watched at once (each is an open
// file); past it the oldest is let go first.
const maxWatched = 256

// watchStep is how often the watched leases are looked at.
const watchStep = 2 * time.Millisecond

type watched struct {
	root  *os.Root
	name  string
	tmp   string   // where the displaced file is, beside the note
	f     *os.File // the displaced file, lease held
	base  []byte   // what f held when the update read it
	until time.Time
}

// done lets go of d: its lease, and the displaced file at tmp unless
// something else is there now.
func (d watched) done() {
	if now, err := d.root.Lstat(d.tmp); err == nil {
		if fi, err := d.f.Stat(); err == nil && os.SameFile(now, fi) {
			_ = d.root.Remove(d.tmp)
		}
	}
	_ = d.f.Close()
}

type watch struct {
	mu      sync.Mutex
	files   []watched
	running bool
	pending sync.WaitGroup // the watch loop and late merges under way
	lock    func() (release func(), err error)
	onLate  func(name string, err error)
}

// SetLock has late merges take the caller's write lock (the vault's,
// which every update of the note holds), and report to onLate how each
// went (nil: merged). Without a lock, Published keeps no displaced file.
func (p *Published) SetLock(lock func() (release func(), err error), onLate func(name string, err error)) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	p.w.lock, p.w.onLate = lock, onLate
}

// watchDisplaced takes over f, the file an update displaced from name to
// tmp (base is what it held), with its lease, and reports whether it did;
// the watch removes tmp when it is done with it.
func (p *Published) watchDisplaced(root *os.Root, name, tmp string, f *os.File, base []byte) bool {
	if p == nil {
		return false
	}
	w := &p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return false
	}
	if len(w.files) >= maxWatched {
		w.files[0].done()
		w.files = w.files[1:]
	}
	w.files = append(w.files, watched{root: root, name: name, tmp: tmp, f: f, base: base, until: time.Now().Add(displacedWatch)})
	if !w.running {
		w.running = true
		w.pending.Add(1)
		go p.watchLoop()
	}
	return true
}

// watchLoop looks at every watched lease each watchStep until none is
// left.
func (p *Published) watchLoop() {
	w := &p.w
	defer w.pending.Done()
	for {
		time.Sleep(watchStep)
		w.mu.Lock()
		now := time.Now()
		kept := w.files[:0]
		for _, d := range w.files {
			switch {
			case leaseBroken(d.f):
				w.pending.Add(1)
				go p.mergeLate(d)
			case now.After(d.until):
				d.done()
			default:
				kept = append(kept, d)
			}
		}
		w.files = kept
		if len(kept) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// mergeLate serves the writer that broke d's lease. Under the vault's
// lock, the displaced file is put back at the note's name (exchanged with
// what is there now: the update's result and anything since), so that the
// writer writes where it meant to and reads its own save back at once;
// once it has closed the file, what the exchange took from the name is
// merged into its save. Where the displaced file is no longer at tmp, the
// writer saves into it where it is, and its save is merged into the note.
func (p *Published) mergeLate(d watched) {
	w := &p.w
	defer w.pending.Done()
	defer d.done()
	release, err := w.lock()
	if err != nil {
		dropLease(d.f)
		if w.onLate != nil {
			w.onLate(d.name, err)
		}
		return
	}
	defer release()
	back := false
	if at, err := d.root.Lstat(d.tmp); err == nil {
		if fi, err := d.f.Stat(); err == nil && os.SameFile(at, fi) {
			back, _ = swap(d.root, d.tmp, d.name)
		}
	}
	dropLease(d.f)
	// Still open after writerWait, what it holds so far is taken rather
	// than nothing.
	_ = awaitClose(d.f)
	if back {
		// tmp now holds what was at the note: the update's result, and
		// what came after it. It goes into the writer's save.
		ours, rerr := d.root.ReadFile(d.tmp)
		if rerr == nil {
			err = p.takeLate(d.root, d.name, d.base, ours)
			if err == nil {
				_ = d.root.Remove(d.tmp)
			}
		} else {
			err = rerr
		}
	} else if theirs, rerr := readAll(d.f); rerr == nil && len(theirs) > 0 && !bytes.Equal(theirs, d.base) {
		err = p.takeLate(d.root, d.name, d.base, theirs)
	} else {
		err = rerr
	}
	if w.onLate != nil {
		w.onLate(d.name, err)
	}
}

// takeLate merges version (a version of base) into the note as it is now,
// line by line. Where they change the same lines (the late writer had
// read an older note, so its save undoes lines the other has since),
// every line of both is kept (a union, as git's merge=union): a line may
// stand twice, old and new, but no save of either side is lost.
func (p *Published) takeLate(root *os.Root, name string, base, version []byte) error {
	res := Updated{carrying: true, carried: version}
	return updateCarrying(root, name, func(now []byte) ([]byte, error) {
		if m, ok := merge3(base, version, now); ok {
			return m, nil
		}
		return union(now, version), nil
	}, &res, p)
}

// union is a with the lines of b it lacks, each inserted where b has it
// (after the lines of a it replaced, if any).
func union(a, b []byte) []byte {
	edits := udiff.Lines(string(a), string(b))
	for i, e := range edits {
		edits[i].New = string(a[e.Start:e.End]) + e.New
	}
	out, err := udiff.Apply(string(a), edits)
	if err != nil {
		return append(append(append([]byte{}, a...), '\n'), b...)
	}
	return []byte(out)
}

// Flush ends every watch now (a program still on its way to a displaced
// file is then the risk docs/data-safety.md states) and waits for the
// late merges under way. Call it before the root is closed.
func (p *Published) Flush() {
	if p == nil {
		return
	}
	w := &p.w
	w.mu.Lock()
	for i := range w.files {
		w.files[i].until = time.Time{}
	}
	w.mu.Unlock()
	w.pending.Wait()
}
