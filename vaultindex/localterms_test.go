package vaultindex

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLocalTermsNumberAsAMapWould: the table gives each distinct term one
// number, in the order first met, through growth and reuse, as a map of
// strings does.
func TestLocalTermsNumberAsAMapWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lt := localTermsPool.Get().(*localTerms)
	for round, distinct := range []int{1, 10, 600, 5000, 40000, 3} {
		want := map[string]int32{}
		var order []string
		for range 4 * distinct {
			term := fmt.Sprintf("w%d", rng.IntN(distinct))
			if round == 2 {
				term = "" // the empty term is a term too
			}
			buf := []byte(term)
			id, added := lt.id(buf)
			copy(buf, "xxxxxxxx") // the caller's bytes change after the call
			w, ok := want[term]
			if !ok {
				w = int32(len(order))
				want[term] = w
				order = append(order, term)
			}
			if id != w || added == ok {
				t.Fatalf("round %d, %q: got %d (added %v), want %d (added %v)", round, term, id, added, w, !ok)
			}
		}
		got := lt.strings()
		if len(got) != len(order) {
			t.Fatalf("round %d: %d terms, want %d", round, len(got), len(order))
		}
		for l := range order {
			if got[l] != order[l] {
				t.Fatalf("round %d: term %d is %q, want %q", round, l, got[l], order[l])
			}
		}
		lt.reset()
	}
}
