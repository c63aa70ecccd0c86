package vaultindex

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"io"
)

// snapTrailer is the size of what a snapshot ends with before its
// checksum: where its terms' gob stream and its positions begin, as two
// big-endian uint64s.
const snapTrailer = 16

// snapSections reads a snapshot's trailer: where its terms and its
// positions begin.
func snapSections(ra io.ReaderAt, size int64) (termsAt, posAt int64, err error) {
	if size < 4+snapTrailer {
		return 0, 0, fmt.Errorf("%d bytes: too short for a snapshot", size)
	}
	var b [snapTrailer]byte
	if _, err := ra.ReadAt(b[:], size-4-snapTrailer); err != nil {
		return 0, 0, err
	}
	t, p := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	if t == 0 || t > p || p > uint64(size-4-snapTrailer) {
		return 0, 0, fmt.Errorf("sections at %d and %d of %d bytes", t, p, size)
	}
	return int64(t), int64(p), nil
}

// decodeTerms reads the terms' stream: the terms with their postings, in
// chunks, then their order (dict.go). It returns each term's positions'
// size in the positions section. The notes are being decoded meanwhile:
// the postings are checked against the header's count of them.
func (l *loaded) decodeTerms(r io.Reader, h *snapHeader, size int64) ([]int64, error) {
	dec := gob.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	terms := min(int64(h.Terms), size/4)
	l.termText, l.postings = make([]string, 0, terms), make([]plist, 0, terms)
	posSizes := make([]int64, 0, terms)
	total := 0
	for len(l.termText) < h.Terms {
		var st snapTerms
		if err := dec.Decode(&st); err != nil {
			return nil, err
		}
		if len(st.Text) == 0 || len(st.Count) != len(st.Text) || len(st.Size) != len(st.Text) || len(st.PosSize) != len(st.Text) || len(l.termText)+len(st.Text) > h.Terms {
			return nil, fmt.Errorf("bad term chunk")
		}
		// Each term's list is a slice of the chunk's Data whose capacity
		// ends at its length: a later append copies it instead of
		// overwriting the next term's.
		at := 0
		for i, text := range st.Text {
			size := int(st.Size[i])
			if size > len(st.Data)-at {
				return nil, fmt.Errorf("bad postings of %q", text)
			}
			pl := plist{data: st.Data[at : at+size : at+size]}
			if !checkList(&pl, st.Count[i], h.Docs) {
				return nil, fmt.Errorf("bad postings of %q", text)
			}
			at += size
			posSizes = append(posSizes, int64(st.PosSize[i]))
			total += int(pl.n)
			l.termText = append(l.termText, text)
			l.postings = append(l.postings, pl)
		}
		if at != len(st.Data) {
			return nil, fmt.Errorf("bad term chunk")
		}
	}
	if total != h.Postings {
		return nil, fmt.Errorf("%d postings of %d", total, h.Postings)
	}
	var order snapOrder
	if err := dec.Decode(&order); err != nil {
		return nil, err
	}
	if !l.checkOrder(order.Sorted) {
		return nil, fmt.Errorf("the terms' order is not theirs, or a term is there twice")
	}
	l.sorted = order.Sorted
	return posSizes, nil
}
