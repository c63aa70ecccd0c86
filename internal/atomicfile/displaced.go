package atomicfile

import (
	"bytes"
	"crypto/rand"
	"io/fs"
	"os"
	"path"
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
// will cause. So the update hands the displaced file, lease held, to its
// Published, which keeps it for displacedWatch, parked under a name in a
// folder of its own (SetParking). An open reaching it then breaks the
// lease, and the watch, under the vault's write lock (SetLock), exchanges
// it back to the note's name before it lets the writer in: the writer
// saves where it meant to, and its next read finds its own save. (Merging
// the save into the note only after the writer closed it let a writer
// that reads again at once build its next save on a note without its
// last one, and that save then overwrote the merge: 1 save lost in about
// 80 runs beside CPU hogs.) What the exchange took from the name, the
// update's result and anything since, is merged into the save once the
// writer has closed the file, keeping every line of both where they
// conflict (takeLate). A file that could not be parked is watched
// unnamed, and a late save into it is merged into the note afterwards.

// displacedWatch is how long a displaced file is kept under lease: far
// longer than any open is kept off the CPU by a busy machine.
const displacedWatch = 2 * time.Second

// maxWatched bounds the displaced files watched under lease at once: each
// is an open file, and a vault-wide edit of thousands of notes must not
// take the process's descriptors, which its other calls need (a rename of
// 2,000 notes once held 274). Past it, the oldest parked one is handed
// down: its lease let go and its descriptor closed, it keeps its parking
// name for the rest of its 2 s, and a save that lands in it then is found
// by its content and merged into the note. (Letting it go at once lost
// a save under the race detector on a busy machine: 1 of 611.) maxNamed
// bounds those too.
const (
	maxWatched = 32
	maxNamed   = 4096
)

// watchStep is how often the watched leases are looked at.
const watchStep = 2 * time.Millisecond

type watched struct {
	root *os.Root
	name string
	at   string   // where f is parked; "" when no name leads to it
	f    *os.File // the displaced file, lease held; nil once handed down
	// id is the file's identity once handed down (f closed).
	id    fs.FileInfo
	base  []byte // what f held when the update read it
	until time.Time
}

// Watching is how many displaced files are watched under lease now, each
// holding a descriptor: at most maxWatched.
func (p *Published) Watching() int {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	return p.w.leased()
}

// leased counts the watched files still open (w.mu held).
func (w *watch) leased() int {
	n := 0
	for _, d := range w.files {
		if d.f != nil {
			n++
		}
	}
	return n
}

// parked reports whether d's file is still at its parking name.
func (d watched) parked() bool {
	if d.at == "" {
		return false
	}
	now, err := d.root.Lstat(d.at)
	if err != nil {
		return false
	}
	fi := d.id
	if d.f != nil {
		if fi, err = d.f.Stat(); err != nil {
			return false
		}
	}
	return fi != nil && os.SameFile(now, fi)
}

// done lets go of d: its lease, and its parking name.
func (d watched) done() {
	if d.parked() {
		_ = d.root.Remove(d.at)
	}
	if d.f != nil {
		_ = d.f.Close()
	}
}

// handDown makes room under maxWatched (w.mu held): the oldest open file
// that is parked lets its lease and descriptor go and stays watched by
// its name; one that is not parked (nothing would lead to it again) is
// let go, as before parking.
func (w *watch) handDown() {
	for i := range w.files {
		d := &w.files[i]
		if d.f == nil {
			continue
		}
		if fi, err := d.f.Stat(); err == nil && d.parked() {
			dropLease(d.f)
			_ = d.f.Close()
			d.f, d.id = nil, fi
			return
		}
		d.done()
		w.files = append(w.files[:i], w.files[i+1:]...)
		return
	}
}

type watch struct {
	mu      sync.Mutex
	files   []watched
	running bool
	pending sync.WaitGroup // the watch loop and late merges under way
	lock    func() (release func(), err error)
	onLate  func(name string, err error)
	parking string // folder of root where displaced files are kept; see SetParking
	hidden  []hiddenSave
}

// SetLock has late merges take the caller's write lock (the vault's,
// which every update of the note holds), and report to onLate how each
// went (nil: merged). Without a lock, Published keeps no displaced file.
func (p *Published) SetLock(lock func() (release func(), err error), onLate func(name string, err error)) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	p.w.lock, p.w.onLate = lock, onLate
}

// SetParking has displaced files kept under dir, an existing folder of
// the root the updates run on that no other process writes and no tool
// lists (the caller makes it, and removes what a dead process left
// there). Should it be gone, a displaced file is watched unnamed.
func (p *Published) SetParking(dir string) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	p.w.parking = dir
}

// watchDisplaced takes over f, the file an update displaced from name to
// tmp (base is what it held), with its lease, and reports whether it did.
// Then tmp no longer exists: the file is parked, or left unnamed.
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
	if w.leased() >= maxWatched {
		w.handDown()
	}
	if len(w.files) >= maxNamed {
		w.files[0].done()
		w.files = w.files[1:]
	}
	at := ""
	if w.parking != "" {
		at = path.Join(w.parking, rand.Text()[:12])
		if root.Rename(tmp, at) != nil {
			at = ""
		}
	}
	if at == "" {
		_ = root.Remove(tmp)
	}
	w.files = append(w.files, watched{root: root, name: name, at: at, f: f, base: base, until: time.Now().Add(displacedWatch)})
	w.start(p)
	return true
}

// start runs the watch loop unless it runs (w.mu held).
func (w *watch) start(p *Published) {
	if !w.running {
		w.running = true
		w.pending.Add(1)
		go p.watchLoop()
	}
}

// watchLoop looks at every watched lease, and every note a swap hid a
// save from (hidden.go), each watchStep until none is left.
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
			case d.f != nil && leaseBroken(d.f):
				w.pending.Add(1)
				go p.mergeLate(d)
			case now.After(d.until) && d.f == nil:
				w.pending.Add(1)
				go p.mergeNamed(d)
			case now.After(d.until):
				d.done()
			default:
				kept = append(kept, d)
			}
		}
		w.files = kept
		w.lookHidden(p, now)
		if len(kept) == 0 && len(w.hidden) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// mergeLate serves the writer that broke d's lease. Under the vault's
// lock, a parked file is first exchanged back to the note's name, so the
// writer writes where it meant to and reads its own save back at once;
// once it has closed the file, what the exchange took from the name is
// merged into its save. A file no name leads to is written where it is,
// and the save merged into the note.
func (p *Published) mergeLate(d watched) {
	w := &p.w
	defer w.pending.Done()
	defer d.done()
	release, err := w.lock()
	if err != nil {
		// Nothing may touch the note: the writer goes ahead into the
		// displaced file, and the log says so.
		dropLease(d.f)
		if w.onLate != nil {
			w.onLate(d.name, err)
		}
		return
	}
	defer release()
	back := d.parked() && exchange(d.root, d.at, d.name) == nil
	dropLease(d.f)
	// Still open after writerWait, what it holds so far is taken rather
	// than nothing.
	_ = awaitClose(d.f)
	if back {
		// d.at now holds what was at the note's name.
		var ours []byte
		if ours, err = d.root.ReadFile(d.at); err == nil {
			err = p.takeLate(d.root, d.name, d.base, ours)
		}
		if err == nil {
			_ = d.root.Remove(d.at)
		}
	} else {
		theirs, rerr := readAll(d.f)
		if rerr != nil || len(theirs) == 0 || bytes.Equal(theirs, d.base) {
			return
		}
		err = p.takeLate(d.root, d.name, d.base, theirs)
	}
	if w.onLate != nil {
		w.onLate(d.name, err)
	}
}

// mergeNamed ends the watch of d, handed down: a save that landed in the
// parked file since (its content is not what the update displaced) is
// merged into the note under the vault's lock, as a late save into an
// unnamed file is.
func (p *Published) mergeNamed(d watched) {
	w := &p.w
	defer w.pending.Done()
	defer d.done()
	if !d.parked() {
		return
	}
	theirs, err := d.root.ReadFile(d.at)
	if err != nil || len(theirs) == 0 || bytes.Equal(theirs, d.base) {
		return
	}
	release, err := w.lock()
	if err == nil {
		err = p.takeLate(d.root, d.name, d.base, theirs)
		release()
	}
	if w.onLate != nil {
		w.onLate(d.name, err)
	}
}

// takeLate merges version, a version of base, into the note as it is now,
// line by line. Where they change the same lines (the late writer had read
// an older note, so its save undoes lines the other holds, while the
// other lacks its later saves), every line of both is kept: a union, as
// git's merge=union. A line may then stand twice, old and new, but no
// save of either side is lost (putting either version aside lost the
// other's later lines).
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
	for i := range w.hidden {
		w.hidden[i].until = time.Time{}
	}
	w.mu.Unlock()
	w.pending.Wait()
}
