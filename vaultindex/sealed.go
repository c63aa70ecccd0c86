package vaultindex

import (
	"bufio"
	"io"
	"os"
)

// Positions take as many bytes as the postings (about 120 MB at 100,000
// notes), but only a phrase reads them, and then only its words' lists.
// Held in memory they raised a 100,000-note vault's resident size from
// 368 to 545 MB and its first build's peak from 472 to 684 MB, past the
// 600 MB budget. So, when the Store offers a file of the index's own
// (Scratch), they are moved there ("sealed") once the part still in
// memory (each list's tail, plist.pos) passes sealAt (Index.sealAt), and read back with
// ReadAt when a phrase needs them: the file is in the page cache, not in
// the heap.

// Scratch is what a Store may also offer: files the index alone uses
// while the process runs.
type Scratch interface {
	// ScratchFile returns a new empty file for reading and writing,
	// which no other process uses and nothing needs once it is closed.
	ScratchFile() (*os.File, error)
}

// sealAt is how many bytes of positions stay in memory before they are
// sealed: a build seals about once per sealAt it reads, each time copying
// the file sealed before (about 4 times 120 MB at 100,000 notes, a few
// hundred milliseconds of a 20-second build).
const sealAt = 32 << 20

// sealed is the positions moved out of memory: every list's, in term
// order, in one file.
type sealed struct {
	f   *os.File
	off []int64 // term t's positions are f[off[t]:off[t+1]], for t < len(off)-1
}

// region is where term t's sealed positions are in the file.
func (s *sealed) region(t uint32) (from, size int64) {
	if int(t)+1 >= len(s.off) {
		return 0, 0
	}
	return s.off[t], s.off[t+1] - s.off[t]
}

// reader reads the sealed positions in one pass, term after term, from
// the first term's (which, in a snapshot's file, is not at its start);
// nil when there are none.
func (s *sealed) reader() *bufio.Reader {
	if s.f == nil {
		return nil
	}
	return bufio.NewReaderSize(io.NewSectionReader(s.f, s.off[0], s.off[len(s.off)-1]-s.off[0]), 1<<20)
}

func (s *sealed) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
	*s = sealed{}
}

// positionsOf is the source of term t's positions, sealed then in memory.
func (ix *Index) positionsOf(t uint32) *posSource {
	ps := &posSource{tail: ix.postings[t].pos}
	if from, size := ix.sealed.region(t); size > 0 {
		ps.r, ps.left = io.NewSectionReader(ix.sealed.f, from, size), size
	}
	return ps
}

// grew counts n more bytes of positions in memory, and seals them all
// when they pass sealAt. The lock is held.
func (ix *Index) grew(n int) {
	ix.tails += n
	if ix.tails >= ix.sealAt {
		ix.seal()
	}
}

// seal moves every list's positions into a new file: what was sealed,
// then the tail in memory, term after term. Without a Scratch store, or
// when a file cannot be had or written, they stay in memory (and are
// tried again after another sealAt).
func (ix *Index) seal() {
	ix.tails = 0
	sc, ok := ix.scratch()
	if !ok {
		return
	}
	f, err := sc.ScratchFile()
	if err != nil {
		ix.logger.Warn("cannot keep phrase positions in a file; they stay in memory", "err", err)
		return
	}
	off, err := ix.writeSealed(f, func(t int, old *bufio.Reader, size int64, w *bufio.Writer) error {
		return ix.copyTerm(t, old, size, w)
	})
	if err != nil {
		_ = f.Close()
		ix.logger.Warn("cannot keep phrase positions in a file; they stay in memory", "err", err)
		return
	}
	ix.sealed.close()
	ix.sealed = sealed{f: f, off: off}
	for t := range ix.postings {
		ix.postings[t].pos = nil
	}
}

// copyTerm writes term t's positions to w: its sealed ones, the size
// bytes old is at, then its tail in memory.
func (ix *Index) copyTerm(t int, old *bufio.Reader, size int64, w io.Writer) error {
	if size > 0 {
		if _, err := io.CopyN(w, old, size); err != nil {
			return err
		}
	}
	_, err := w.Write(ix.postings[t].pos)
	return err
}

// writeSealed writes a new sealed file f, term after term: each calls
// one(t, old, size, w) with the old file's reader positioned at term t's
// sealed positions (size bytes, which one must read all of) and the new
// file's writer; it returns the new file's offsets.
func (ix *Index) writeSealed(f *os.File, one func(t int, old *bufio.Reader, size int64, w *bufio.Writer) error) ([]int64, error) {
	old := ix.sealed.reader()
	cw := &countWriter{w: f}
	w := bufio.NewWriterSize(cw, 1<<20)
	off := make([]int64, len(ix.postings)+1)
	for t := range ix.postings {
		_, size := ix.sealed.region(uint32(t))
		if err := one(t, old, size, w); err != nil {
			return nil, err
		}
		off[t+1] = cw.n + int64(w.Buffered())
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return off, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// scratch is the store's Scratch, if it offers one.
func (ix *Index) scratch() (Scratch, bool) {
	if ix.keep == nil {
		return nil, false
	}
	sc, ok := ix.keep.store.(Scratch)
	return sc, ok
}

// posSource yields one list's postings' positions in turn (each as its
// gaps, see appendPositions): the sealed part, read through a buffer,
// then the tail in memory.
type posSource struct {
	r    io.Reader
	left int64 // bytes of r not yet read
	buf  []byte
	b, e int // the unread bytes of buf
	tail []byte
	ti   int
}

// next returns the next posting's positions; false after the last, or
// when the file cannot be read.
func (ps *posSource) next() ([]byte, bool) {
	if ps.e > ps.b || ps.left > 0 {
		if !ps.fill(min(binaryMaxVarint, ps.e-ps.b+int(min(ps.left, binaryMaxVarint)))) {
			return nil, false
		}
		size, j, ok := uvarint(ps.buf[:ps.e], ps.b)
		if !ok {
			return nil, false
		}
		ps.b = j
		if !ps.fill(int(size)) {
			return nil, false
		}
		raw := ps.buf[ps.b : ps.b+int(size)]
		ps.b += int(size)
		return raw, true
	}
	if ps.ti >= len(ps.tail) {
		return nil, false
	}
	var raw []byte
	raw, ps.ti = nextPositions(ps.tail, ps.ti)
	return raw, true
}

const binaryMaxVarint = 5 // bytes of a 32-bit varint

// fill makes at least n unread bytes ready in buf, if r has them.
func (ps *posSource) fill(n int) bool {
	if ps.e-ps.b >= n {
		return true
	}
	if int64(n-(ps.e-ps.b)) > ps.left {
		return false
	}
	if ps.buf == nil || n > len(ps.buf) {
		buf := make([]byte, max(n, 64<<10))
		ps.e = copy(buf, ps.buf[ps.b:ps.e])
		ps.buf, ps.b = buf, 0
	} else {
		ps.e = copy(ps.buf, ps.buf[ps.b:ps.e])
		ps.b = 0
	}
	want := min(int64(len(ps.buf)-ps.e), ps.left)
	k, err := io.ReadFull(ps.r, ps.buf[ps.e:ps.e+int(want)])
	ps.e += k
	ps.left -= int64(k)
	if err != nil {
		ps.left = 0
	}
	return ps.e-ps.b >= n
}
