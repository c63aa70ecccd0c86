package atomicfile

import (
	"bytes"
	"io/fs"
	"os"
	"time"
)

// A swap that displaced another program's save (renamed over the note
// between the last check and the swap, or written into the file read)
// stands ours, which lacks that save, at the note's name until the round
// that follows puts the save back or merges it: microseconds, or
// milliseconds on a starved machine. A program that reads the note in that
// moment builds its next save on ours, and may write it over the note at
// any time after, when the update is long done: the save the swap hid is
// then gone from the note (its writer's own earlier save, lost by its next
// one: 1 save in about 9,000 in CI, on a loaded machine). The kernel tells
// nobody that a file was read, so the note is watched for hiddenWatch
// after such a swap, as a displaced file is (displacedWatch): whenever it
// changes, a note that lacks a line the hidden save added gets the hidden
// save merged back in, every line of both kept (union), under the vault's
// write lock.

// hiddenWatch is how long a note is watched after a swap hid a save: far
// longer than a program that read the note is kept off the CPU before it
// writes its save.
const hiddenWatch = displacedWatch

// maxHidden bounds the notes watched so at once; past it the oldest is
// looked at a last time and let go.
const maxHidden = 256

// hiddenSave is a note watched after a swap hid a save from it.
type hiddenSave struct {
	root *os.Root
	name string
	// base is what stood at the name while the save was hidden (ours);
	// version is the hidden save with our change, made of base.
	base, version []byte
	seen          fs.FileInfo // the note as last looked at
	until         time.Time
}

// keepHidden watches name for hiddenWatch: hid is a save another program
// made of cur that the swap of next hid (see above). Without a write lock
// (SetLock) nothing is watched.
func (p *Published) keepHidden(root *os.Root, name string, cur, hid, next []byte) {
	if p == nil || len(hid) == 0 || bytes.Equal(hid, cur) {
		return
	}
	version, ok := merge3(cur, hid, next)
	if !ok {
		version = union(next, hid)
	}
	seen, _ := root.Lstat(name)
	w := &p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return
	}
	if len(w.hidden) >= maxHidden {
		w.pending.Add(1)
		go p.restoreHidden(w.hidden[0])
		w.hidden = w.hidden[1:]
	}
	w.hidden = append(w.hidden, hiddenSave{root: root, name: name, base: next, version: version, seen: seen, until: time.Now().Add(hiddenWatch)})
	w.start(p)
}

// lookHidden looks at every watched note (w.mu held): one that changed
// since the last look, and each at the end of its watch, is checked for
// the save it may have lost (restoreHidden).
func (w *watch) lookHidden(p *Published, now time.Time) {
	kept := w.hidden[:0]
	for _, h := range w.hidden {
		fi, err := h.root.Lstat(h.name)
		if err != nil {
			// Moved or deleted (a save by rename never leaves the name
			// empty): a file made at the name later is another note.
			continue
		}
		changed := !sameState(fi, h.seen)
		h.seen = fi
		if changed || now.After(h.until) {
			w.pending.Add(1)
			go p.restoreHidden(h)
		}
		if !now.After(h.until) {
			kept = append(kept, h)
		}
	}
	w.hidden = kept
}

// restoreHidden merges h's hidden save back into the note when the note
// lacks a line it added, under the vault's write lock.
func (p *Published) restoreHidden(h hiddenSave) {
	w := &p.w
	defer w.pending.Done()
	if now, err := h.root.ReadFile(h.name); err != nil || holds(now, h.base, h.version) {
		return // gone, or the save is there
	}
	release, err := w.lock()
	if err == nil {
		res := Updated{carrying: true, carried: h.version}
		err = updateCarrying(h.root, h.name, func(now []byte) ([]byte, error) {
			if holds(now, h.base, h.version) {
				return now, nil
			}
			return union(now, h.version), nil
		}, &res, p)
		release()
		if err == nil && bytes.Equal(res.Old, res.New) {
			return // put back meanwhile: nothing merged
		}
	}
	if w.onLate != nil {
		w.onLate(h.name, err)
	}
}

// holds reports whether now has every line version adds to base, as
// often as version has it.
func holds(now, base, version []byte) bool {
	in := lineCounts(version)
	for l, n := range lineCounts(base) {
		if in[l] <= n {
			delete(in, l)
		}
	}
	have := lineCounts(now)
	for l, n := range in {
		if have[l] < n {
			return false
		}
	}
	return true
}

// lineCounts counts each line of b.
func lineCounts(b []byte) map[string]int {
	n := map[string]int{}
	for l := range bytes.Lines(b) {
		n[string(bytes.TrimSuffix(l, []byte("\n")))]++
	}
	return n
}

// sameState reports whether a and b describe the same file, unchanged.
func sameState(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
