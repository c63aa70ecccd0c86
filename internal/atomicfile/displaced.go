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
// will cause. So the update hands the displaced file, lease held, to its
// Published, which keeps it for displacedWatch: an open reaching it
// then breaks the lease, the watch lets the writer in, waits for it to
// close the file, and merges what it saved into the note as an update of
// its own (under the vault's write lock: SetLock), keeping every line of
// both where they conflict (takeLate).

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
	f     *os.File
	base  []byte // what f held when the update read it
	until time.Time
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

// watchDisplaced takes over f, the file an update displaced from name
// (base is what it held), with its lease, and reports whether it did.
func (p *Published) watchDisplaced(root *os.Root, name string, f *os.File, base []byte) bool {
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
		_ = w.files[0].f.Close()
		w.files = w.files[1:]
	}
	w.files = append(w.files, watched{root: root, name: name, f: f, base: base, until: time.Now().Add(displacedWatch)})
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
				_ = d.f.Close()
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

// mergeLate lets the writer that broke d's lease write, waits for it to
// close the file, and merges what it saved into the note.
func (p *Published) mergeLate(d watched) {
	w := &p.w
	defer w.pending.Done()
	defer d.f.Close()
	dropLease(d.f)
	// Still open after writerWait, what it holds so far is taken rather
	// than nothing.
	_ = awaitClose(d.f)
	theirs, err := readAll(d.f)
	if err != nil || len(theirs) == 0 || bytes.Equal(theirs, d.base) {
		return
	}
	release, err := w.lock()
	if err == nil {
		err = p.takeLate(d, theirs)
		release()
	}
	if w.onLate != nil {
		w.onLate(d.name, err)
	}
}

// takeLate puts a late save into the note: merged with the note as it is
// now, line by line. Where they change the same lines (the program had
// read an older note, so its save undoes lines the note has since, while
// the note holds its later saves), every line of both is kept: the note's,
// and the save's lines it lacks, each beside its place (a union, as git's
// merge=union). A line may then stand twice, old and new, but no save of
// either side is lost (putting either version aside lost the other's
// later lines).
func (p *Published) takeLate(d watched, theirs []byte) error {
	res := Updated{carrying: true, carried: theirs}
	return updateCarrying(d.root, d.name, func(now []byte) ([]byte, error) {
		if m, ok := merge3(d.base, theirs, now); ok {
			return m, nil
		}
		return union(now, theirs), nil
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
