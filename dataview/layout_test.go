package dataview

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// walkLessBySegments is the walk order written plainly: element by
// element, fewer elements first.
func walkLessBySegments(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < min(len(as), len(bs)); i++ {
		if as[i] != bs[i] {
			return strings.Compare(as[i], bs[i])
		}
	}
	return len(as) - len(bs)
}

// TestWalkOrder: walkLess orders as the plain definition does, and
// under finds exactly a folder's files, on random paths whose names
// share prefixes with folders ("a", "a b", "a.md", "a/…").
func TestWalkOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 2))
	names := []string{"a", "a b", "a.md", "a-", "b", "B", "a!", "ab"}
	path := func() string {
		var parts []string
		for range 1 + r.IntN(4) {
			parts = append(parts, names[r.IntN(len(names))])
		}
		return strings.Join(parts, "/")
	}
	for range 200 {
		var files []string
		for range r.IntN(40) {
			files = append(files, path())
		}
		for i := range files {
			for j := range files {
				if got, want := sign(walkLess(files[i], files[j])), sign(walkLessBySegments(files[i], files[j])); got != want {
					t.Fatalf("walkLess(%q, %q) = %d, want %d", files[i], files[j], got, want)
				}
			}
		}
		slices.SortFunc(files, walkLess)
		files = slices.Compact(files)
		folder := path()
		i, j := under(files, folder)
		var want []string
		for _, f := range files {
			if strings.HasPrefix(f, folder+"/") {
				want = append(want, f)
			}
		}
		if got := files[i:j]; !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("under(%q) in %q = %q, want %q", folder, files, got, want)
		}
	}
}

func sign(n int) int { return min(max(n, -1), 1) }

// TestSlab: pages kept in a slab read back as pages kept alone, a large
// page has bytes of its own, and chunks fill up and are replaced.
func TestSlab(t *testing.T) {
	v := NewVault(Options{})
	slab := NewSlab()
	st := FileStat{Mtime: time.Unix(1e9, 0), Ctime: time.Unix(1e9, 0)}
	for i := range 3000 {
		text := fmt.Sprintf("---\nstatus: open\n---\n# Note %d\nrating:: %d\n- [ ] task %d [due:: 2026-01-%02d]\n", i, i%5, i, 1+i%28)
		if i%1000 == 7 {
			text += strings.Repeat("long line of text\n", 5000)
		}
		path := fmt.Sprintf("F%d/Note %d.md", i%3, i)
		alone, kept := v.ParsePage(path, text, st), v.ParsePageIn(slab, path, text, st)
		a, b := dumpMeta(alone.meta(v.g.loc, nil)), dumpMeta(kept.meta(v.g.loc, nil))
		if a != b {
			t.Fatalf("%s: in a slab %s, alone %s", path, b, a)
		}
		chunk := slab.bytes[:cap(slab.bytes)]
		at, lo := uintptr(unsafe.Pointer(&kept.blob[0])), uintptr(unsafe.Pointer(&chunk[0]))
		inChunk := at >= lo && at < lo+uintptr(len(chunk))
		if large := len(kept.blob) > slabBytes/8; large != (i%1000 == 7) || large == inChunk {
			t.Fatalf("%s: %d bytes, in the slab's chunk: %v", path, len(kept.blob), inChunk)
		}
		if inChunk && cap(kept.blob) != len(kept.blob) {
			t.Fatalf("%s: a page's bytes can grow into the next page's", path)
		}
	}
}

// TestParseCacheAndClock: a parsed query is kept and answered from again,
// but one naming a date shorthand is parsed each time, since the parse
// reads the clock: moved a day, "today" moves with it.
func TestParseCacheAndClock(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	v := NewVault(Options{Location: time.UTC, Now: func() time.Time { return now }})
	v.Put("a.md", "rating:: 3\n", FileStat{Mtime: now, Ctime: now})
	ask := func(inline bool, text string) string {
		t.Helper()
		var res *Result
		var err error
		if inline {
			res, err = v.Inline(context.Background(), text, "a.md", Limits{})
		} else {
			res, err = v.Query(context.Background(), text, "a.md", Limits{})
		}
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		b, _ := json.Marshal(JSON(res.Values))
		return string(b)
	}
	for _, inline := range []bool{true, false} {
		text := `date(today)`
		if !inline {
			text = `LIST WITHOUT ID date(today) FROM "a"`
		}
		first := ask(inline, text)
		now = now.AddDate(0, 0, 1)
		if second := ask(inline, text); second == first {
			t.Errorf("%s: %s on both days", text, first)
		}
	}
	const q = `TABLE rating FROM "" WHERE rating > 2`
	first := ask(false, q)
	if _, kept := v.parsed.m[q]; !kept {
		t.Fatalf("%s was not kept", q)
	}
	if second := ask(false, q); second != first {
		t.Errorf("%s: %s, then from the kept parse %s", q, first, second)
	}
	for i := range maxParsed + 10 { // bounded
		ask(true, fmt.Sprintf("%d + 1", i))
	}
	if n := len(v.parsedInline.m); n > maxParsed {
		t.Errorf("%d parsed expressions kept, at most %d", n, maxParsed)
	}
}
