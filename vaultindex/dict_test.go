package vaultindex

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestDictionaryAfterRestart: a restart makes no map of the terms; words
// are found by halves in the order the snapshot kept, words of notes read
// since too; a refresh of many notes makes the map; and a second restart
// has the order again, every term in it.
func TestDictionaryAfterRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("word%02d shared garden", i)
	}
	src := newMem(files)
	st := newStore()
	ix := New(src, WithStore(st, "vault"))
	find := func(ix *Index, q string, want ...string) {
		t.Helper()
		res, err := ix.Search(ctx, searchReq(q))
		if err != nil {
			t.Fatal(err)
		}
		got := paths(res)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%q found %q, want %q", q, got, want)
		}
	}
	find(ix, "word07", "n07.md")
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}

	restarted := New(src, WithStore(st, "vault"))
	find(restarted, "word31", "n31.md")
	if restarted.termID != nil {
		t.Fatal("a restart made a map of the terms")
	}
	src.write("new.md", "zyzzyva and aardvark")
	find(restarted, "zyzzyva", "new.md")
	find(restarted, "aardvark", "new.md")
	find(restarted, "word49", "n49.md")
	if restarted.termID != nil {
		t.Fatal("a refresh of one note made a map of the terms")
	}
	for i := range dictMapAt + 1 {
		src.write(fmt.Sprintf("m%03d.md", i), fmt.Sprintf("many%03d", i))
	}
	find(restarted, "many200", "m200.md")
	find(restarted, "zyzzyva", "new.md")
	if restarted.termID == nil {
		t.Fatal("a refresh of many notes made no map")
	}
	if err := restarted.Save(); err != nil {
		t.Fatal(err)
	}
	again := New(src, WithStore(st, "vault"))
	find(again, "many007", "m007.md")
	find(again, "zyzzyva", "new.md")
	find(again, "word00", "n00.md")
	if n := len(again.sorted); n != len(again.termText) {
		t.Fatalf("the order holds %d terms of %d", n, len(again.termText))
	}
}

// TestCheckOrder: a snapshot's order of the terms is refused unless it is
// every term once, in the order of their text.
func TestCheckOrder(t *testing.T) {
	t.Parallel()
	l := &loaded{termText: []string{"b", "a", "c"}}
	for _, c := range []struct {
		sorted []uint32
		want   bool
	}{
		{[]uint32{1, 0, 2}, true},
		{[]uint32{0, 1, 2}, false}, // not in order
		{[]uint32{1, 0}, false},    // a term missing
		{[]uint32{1, 1, 2}, false}, // a term twice
		{[]uint32{1, 0, 3}, false}, // no such term
	} {
		if got := l.checkOrder(c.sorted); got != c.want {
			t.Errorf("checkOrder(%v) = %v, want %v", c.sorted, got, c.want)
		}
	}
	dup := &loaded{termText: []string{"a", "a"}}
	if dup.checkOrder([]uint32{0, 1}) {
		t.Error("a term written twice passed")
	}
}
