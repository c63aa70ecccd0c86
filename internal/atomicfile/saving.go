package atomicfile

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// This file is how an update or a read tells that another program is in
// the middle of saving a file: a Linux read lease where the system grants
// one (lease_linux.go), the file's size and time elsewhere; and what an
// update that gives up does with a save it carries.

// giveUp is the error of an update that could not be made. A save of
// another program that lived only in the update's merge is written to a
// conflict copy first, unless the note holds it already.
func giveUp(root *os.Root, name string, carried []byte) error {
	if carried != nil {
		if now, err := root.ReadFile(name); err != nil || !bytes.Equal(now, carried) {
			if cp, err := keepCopy(root, name, carried); err == nil {
				return &fs.PathError{Op: "update", Path: name, Err: &ConflictCopy{Path: cp}}
			}
		}
	}
	return &fs.PathError{Op: "update", Path: name, Err: ErrBusy}
}

// ConflictCopy is the error of an update that gave up (it matches ErrBusy)
// after it had taken in a save of another program that no file held any
// more: that save was written to Path, beside the note, as sync clients
// keep conflicting versions.
type ConflictCopy struct{ Path string }

func (c *ConflictCopy) Error() string {
	return ErrBusy.Error() + "; another program's save that could not be merged is kept in " + c.Path
}

func (c *ConflictCopy) Unwrap() error { return ErrBusy }

// keepCopy writes data to a new file beside name, "<name> (conflict
// <time>)<ext>", never over an existing one, and returns its name.
func keepCopy(root *os.Root, name string, data []byte) (string, error) {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext) + " (conflict " + time.Now().Format("2006-01-02 150405")
	var err error
	for i := 1; i <= 9; i++ {
		cp := stem + ")" + ext
		if i > 1 {
			cp = stem + " " + strconv.Itoa(i) + ")" + ext
		}
		if err = Create(root, cp, data); err == nil {
			return cp, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", err
}

// maxPause is the longest pause between two looks at a file another
// program has open for writing: short, as the moment it is closed may be
// the only one before its next save.
const maxPause = 4 * time.Millisecond

// writerWait bounds how long an update or a read waits for another
// program to close a file it has open for writing.
const writerWait = 5 * time.Second

// errWriterOpen is a round that found the file open for writing by another
// process (takeLease said leaseBusy): nothing was read.
var errWriterOpen = errors.New("another program has the file open for writing")

// testHookWriterOpen, when set by a test, runs each time an update or a
// read waits for another program to close the file.
var testHookWriterOpen func()

// leaseState is what takeLease got.
type leaseState int

const (
	// noLease: the system cannot say whether the file is being written;
	// the file's size and time are watched instead (midSave, settled).
	noLease leaseState = iota
	// leaseHeld: nobody has the file open for writing, and nobody can
	// write into it until the lease is let go.
	leaseHeld
	// leaseBusy: another process has the file open for writing.
	leaseBusy
)

// noLeases, set by tests, has takeLease answer as on a system without
// leases, so that the fallback is tested where leases exist.
//
//lint:ignore U1000 read by Linux's takeLease (lease_linux.go); set by tests everywhere
var noLeases bool

// awaitClose waits, writerWait at most, until no process has f's file
// open for writing, and reports whether that came.
func awaitClose(f *os.File) bool {
	pause := time.Millisecond
	for deadline := time.Now().Add(writerWait); ; {
		switch takeLease(f) {
		case leaseHeld:
			dropLease(f)
			return true
		case noLease:
			return false
		}
		if time.Now().After(deadline) {
			return false
		}
		if testHookWriterOpen != nil {
			testHookWriterOpen()
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
}

// saveGap bounds how long an empty file whose modification is that recent
// is taken for one being saved in place: Obsidian, like most editors,
// saves by truncating the file and then writing it, and a read between
// the two finds it empty. Building on that would replace the whole note
// with the edit alone (a stress test of an in-place writer and this
// package lost every line but the last that way).
const saveGap = 200 * time.Millisecond

// testHookMidSave, when set by a test, runs each time an update waits for
// a save in progress.
var testHookMidSave func()

// midSave reports whether the empty file f (fi is its state when read)
// looks like one being saved in place: changed within saveGap. It then
// waits, polling, until the file has content or saveGap has passed since
// its change, and returns true so that the caller reads it again; a note
// that is really empty is used as it is after that.
func midSave(f *os.File, fi fs.FileInfo) bool {
	if !recent(fi) {
		return false
	}
	deadline := fi.ModTime().Add(saveGap)
	for time.Now().Before(deadline) {
		if testHookMidSave != nil {
			testHookMidSave()
		}
		if now, err := f.Stat(); err != nil || now.Size() > 0 || !now.ModTime().Equal(fi.ModTime()) {
			return true
		}
		time.Sleep(settleStep)
	}
	return true
}

// settleStep is how long a file changed within saveGap must stay as it
// is, size and time, before it is taken as complete: a program saving in
// place writes it in pieces a reader can see (an update once read the
// first 64 KiB of a note being saved, and built on them).
const settleStep = 2 * time.Millisecond

// settled reports whether f, read as fi, is not being written: changed
// longer than saveGap ago, or unchanged over settleStep.
func settled(f *os.File, fi fs.FileInfo) bool {
	if !recent(fi) {
		return true
	}
	time.Sleep(settleStep)
	now, err := f.Stat()
	return err == nil && now.Size() == fi.Size() && now.ModTime().Equal(fi.ModTime())
}

// recent reports whether fi changed within saveGap; a time in the future
// is one this machine cannot judge, and counts as long ago.
func recent(fi fs.FileInfo) bool {
	age := time.Since(fi.ModTime())
	return age >= 0 && age < saveGap
}

// Published remembers the files this process's updates published last,
// so that its own writes, complete when they appear, are not watched as
// saves in progress (appending twice to a note would wait each time).
// A nil *Published knows nothing. It is safe for concurrent use.
type Published struct {
	mu sync.Mutex
	m  map[string]fs.FileInfo
	w  watch // files updates displaced, watched for late saves (displaced.go)
}

// maxPublished bounds what a Published remembers; it starts over when full.
const maxPublished = 4096

// Add remembers the file now at name as this process's own (a note it
// just published, created or replaced).
func (p *Published) Add(root *os.Root, name string) {
	if p == nil {
		return
	}
	fi, err := root.Lstat(name)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil || len(p.m) >= maxPublished {
		p.m = map[string]fs.FileInfo{}
	}
	if err == nil {
		p.m[name] = fi
	}
}

// ours reports whether fi is the file this process published at name,
// unchanged since.
func (p *Published) ours(name string, fi fs.FileInfo) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pub, ok := p.m[name]
	return ok && os.SameFile(pub, fi) && pub.Size() == fi.Size() && pub.ModTime().Equal(fi.ModTime())
}

// ReadSettled reads name as Update reads it: a note another program is
// saving in place is read once the save is done, not empty or half
// written. Where the system has leases, a file another program has open
// for writing is waited for (writerWait at most, then ErrBusy) and read
// under a lease, which no writer can get past; elsewhere the file's size
// and time are watched (within maxRounds tries; then it is read as it
// is). pub may be nil.
func ReadSettled(root *os.Root, name string, pub *Published) ([]byte, error) {
	start := time.Now()
	pause := time.Millisecond
	for round := 1; ; round++ {
		f, err := openRead(root, name)
		if heldUnshared(err) == errWriterOpen {
			// Windows: another program holds the file without sharing it;
			// waited for as a writer is.
			if time.Since(start) >= writerWait {
				return nil, &fs.PathError{Op: "read", Path: name, Err: ErrBusy}
			}
			time.Sleep(pause)
			pause = min(2*pause, maxPause)
			continue
		}
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil && !fi.Mode().IsRegular() {
			// A FIFO or a device is never read as a note: the read could
			// block for ever or never end.
			err = &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
		}
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		// A writer in the file (a lease refused on Linux, writers kept
		// out refused on Windows) is waited for.
		lease := takeLease(f)
		var release func()
		err = errWriterOpen
		if lease != leaseBusy {
			release, err = guardRead(f)
		}
		if err != nil {
			_ = f.Close()
			if time.Since(start) >= writerWait {
				return nil, &fs.PathError{Op: "read", Path: name, Err: ErrBusy}
			}
			if testHookWriterOpen != nil {
				testHookWriterOpen()
			}
			time.Sleep(pause)
			pause = min(2*pause, maxPause)
			continue
		}
		data, err := readAll(f)
		release()
		if err != nil || lease == leaseHeld || round >= maxRounds {
			_ = f.Close()
			return data, err
		}
		again := len(data) == 0 && midSave(f, fi) || len(data) > 0 && !pub.ours(name, fi) && !settled(f, fi)
		_ = f.Close()
		if !again {
			return data, nil
		}
	}
}

// ErrNotRegular is a path that names something other than a regular file
// (a FIFO, a device, a socket) where a note or an attachment was expected.
var ErrNotRegular = errors.New("not a regular file")
