package vaultindex

import "math/bits"

// set is a set of note ids.
type set []uint64

func newSet(n int) set { return make(set, (n+63)/64) }

func (s set) add(i uint32) { s[i/64] |= 1 << (i % 64) }

func (s set) has(i uint32) bool { return s[i/64]&(1<<(i%64)) != 0 }

func (s set) and(o set) set {
	for i := range s {
		s[i] &= o[i]
	}
	return s
}

func (s set) or(o set) {
	for i := range s {
		s[i] |= o[i]
	}
}

// each calls fn with every member, in order.
func (s set) each(fn func(id uint32)) {
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			w &^= 1 << b
			fn(uint32(i*64 + b))
		}
	}
}

func (s set) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

func (s set) andNot(o set) {
	for i := range s {
		s[i] &^= o[i]
	}
}

// Search runs one search.
