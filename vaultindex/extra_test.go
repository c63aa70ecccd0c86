package vaultindex

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestExtra: each note's extra is made from the index's own read of it;
// EachExtra walks them only when a note came or went since the caller's
// version; a note loaded from a snapshot has its extra made on first use,
// from one more read of it alone.
func TestExtra(t *testing.T) {
	t.Parallel()
	src := newMem(map[string]string{"a.md": "alpha", "b.md": "beta", "c.canvas": "{}"})
	var made atomic.Int32
	upper := func(p string, data []byte, _ time.Time) any {
		made.Add(1)
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		return strings.ToUpper(string(data))
	}
	ctx := context.Background()
	ix := New(src, WithExtra(upper))
	defer ix.Close()
	walk := func(since uint64) (uint64, map[string]any) {
		t.Helper()
		got := map[string]any{}
		v, files, err := ix.EachExtra(ctx, since, func(p string, x any) { got[p] = x })
		if len(files) != 3 {
			t.Errorf("listing %v", files)
		}
		if err != nil {
			t.Fatal(err)
		}
		return v, got
	}
	if _, err := ix.Tags(ctx); err != nil { // the index built: no extra made yet
		t.Fatal(err)
	}
	if made.Load() != 0 {
		t.Errorf("%d extras made before any was asked for", made.Load())
	}
	reads := src.reads
	v1, got := walk(0)
	if len(got) != 2 || got["a.md"] != "ALPHA" || got["b.md"] != "BETA" || made.Load() != 3 || src.reads != reads+3 {
		t.Fatalf("first walk %v (%d made, %d reads)", got, made.Load(), src.reads-reads)
	}
	if v2, again := walk(v1); v2 != v1 || len(again) != 0 {
		t.Errorf("nothing changed, yet walked again: %v (version %d, then %d)", again, v1, v2)
	}
	src.write("a.md", "aleph")
	reads = src.reads
	v3, got := walk(v1)
	if v3 == v1 || got["a.md"] != "ALEPH" || made.Load() != 4 || src.reads != reads+1 { // one read serves both
		t.Errorf("after an edit: %v, version %d → %d, %d made", got, v1, v3, made.Load())
	}

	st := saved(t, src)
	src.reads = 0
	made.Store(0)
	loaded := New(src, WithStore(st, "vault"), WithExtra(upper))
	defer loaded.Close()
	got = map[string]any{}
	if _, _, err := loaded.EachExtra(ctx, 0, func(p string, x any) { got[p] = x }); err != nil {
		t.Fatal(err)
	}
	if got["a.md"] != "ALEPH" || got["b.md"] != "BETA" || made.Load() != 3 || src.reads != 3 {
		t.Errorf("from a snapshot: %v, %d made, %d reads", got, made.Load(), src.reads)
	}
}
