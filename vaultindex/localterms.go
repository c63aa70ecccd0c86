package vaultindex

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// localTerms numbers the distinct terms of one note as it is tokenized:
// an open-addressing table over the terms' bytes, kept in one arena. A Go
// map keyed by string cost a string per distinct term per note and a
// third of a first build's time in hashing and probing (profiled on
// 100,000 notes); this table hashes each token's bytes once, allocates
// nothing per term, and is recycled from note to note.
type localTerms struct {
	seed  maphash.Seed
	slots []int32  // local number + 1; 0 is empty
	arena []byte   // the terms' bytes, one after another
	ends  []uint32 // term l's bytes end at ends[l]; start at ends[l-1]
}

var localTermsPool = sync.Pool{New: func() any {
	return &localTerms{seed: maphash.MakeSeed(), slots: make([]int32, 1024)}
}}

// id returns term's local number, numbering it next when new (added
// true). term is copied: its bytes may change after the call.
func (lt *localTerms) id(term []byte) (l int32, added bool) {
	mask := uint64(len(lt.slots) - 1)
	h := maphash.Bytes(lt.seed, term)
	for i := h & mask; ; i = (i + 1) & mask {
		s := lt.slots[i]
		if s == 0 {
			l = int32(len(lt.ends))
			lt.arena = append(lt.arena, term...)
			lt.ends = append(lt.ends, uint32(len(lt.arena)))
			lt.slots[i] = l + 1
			if 2*len(lt.ends) > len(lt.slots) {
				lt.grow()
			}
			return l, true
		}
		if bytes.Equal(lt.bytes(s-1), term) {
			return s - 1, false
		}
	}
}

// bytes is term l's text in the arena.
func (lt *localTerms) bytes(l int32) []byte {
	start := uint32(0)
	if l > 0 {
		start = lt.ends[l-1]
	}
	return lt.arena[start:lt.ends[l]]
}

// grow doubles the slots and places every term again.
func (lt *localTerms) grow() {
	lt.slots = make([]int32, 2*len(lt.slots))
	mask := uint64(len(lt.slots) - 1)
	for l := range lt.ends {
		i := maphash.Bytes(lt.seed, lt.bytes(int32(l))) & mask
		for lt.slots[i] != 0 {
			i = (i + 1) & mask
		}
		lt.slots[i] = int32(l) + 1
	}
}

// strings returns the terms by local number, as substrings of one string
// holding them all: one allocation for the note instead of one per term.
// A term kept past the note (a new term of the dictionary) must be cloned,
// or it would keep the note's every term alive.
func (lt *localTerms) strings() []string {
	all := string(lt.arena)
	out := make([]string, len(lt.ends))
	start := uint32(0)
	for l, end := range lt.ends {
		out[l] = all[start:end]
		start = end
	}
	return out
}

// reset empties the table for the next note; a table grown by a large
// note goes back to its usual size rather than stay large in the pool.
func (lt *localTerms) reset() {
	if len(lt.slots) > 1<<14 {
		lt.slots = make([]int32, 1024)
	} else {
		clear(lt.slots)
	}
	lt.arena, lt.ends = lt.arena[:0], lt.ends[:0]
	if cap(lt.arena) > 1<<20 {
		lt.arena = nil
	}
}
