package vaultindex

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// A snapshot's positions section follows its gob values, raw: the
// positions of every term with postings, in the order of the term
// chunks, each term's as its list holds them (appendPositions), PosSize
// bytes. Laid out as a sealed file is, it is used where it lies: a
// restart that finds the snapshot in a file keeps that file open and
// reads a phrase's positions from it (the file is never written again:
// a new snapshot replaces it by a rename), rather than decoding or
// copying 120 MB at 100,000 notes.

// writePositions writes the positions section: each term's sealed
// positions (read in one pass of the sealed file), then its tail.
func (ix *Index) writePositions(w io.Writer) error {
	old := ix.sealed.reader()
	for t, l := range ix.postings {
		dst := w
		if l.n == 0 {
			dst = io.Discard // a term without postings is not in a snapshot
		}
		_, size := ix.sealed.region(uint32(t))
		if err := ix.copyTerm(t, old, size, dst); err != nil {
			return err
		}
	}
	return nil
}

// readPositions reads the positions section, length bytes at start of
// the snapshot r, sizes bytes for each term in turn: where it lies, when r
// is a file that may stay open while a new snapshot is renamed over it;
// else into a file of sc's; else into memory, each term's checked.
func (l *loaded) readPositions(r io.ReadSeeker, ra io.ReaderAt, start, length int64, sizes []int64, sc Scratch) error {
	off := make([]int64, len(sizes)+1)
	for t, n := range sizes {
		off[t+1] = off[t] + n
	}
	if off[len(sizes)] != length {
		return fmt.Errorf("positions of %d bytes, the terms say %d", length, off[len(sizes)])
	}
	// Windows refuses to rename over a file that is open, which would
	// keep every other process from saving the index.
	if f, ok := r.(*os.File); ok && runtime.GOOS != "windows" {
		for t := range off {
			off[t] += start
		}
		l.sealed, l.adopted = sealed{f: f, off: off}, true
		return nil
	}
	if sc != nil {
		if f, err := sc.ScratchFile(); err == nil {
			if _, err := io.Copy(f, io.NewSectionReader(ra, start, length)); err == nil {
				l.sealed = sealed{f: f, off: off}
				return nil
			}
			_ = f.Close()
		}
	}
	all := make([]byte, length)
	if _, err := ra.ReadAt(all, start); err != nil {
		return err
	}
	for t := range l.postings {
		pl := &l.postings[t]
		pl.pos = all[off[t]:off[t+1]:off[t+1]]
		if !checkPositions(pl.pos, pl.n) {
			return fmt.Errorf("bad positions of %q", l.termText[t])
		}
	}
	return nil
}
