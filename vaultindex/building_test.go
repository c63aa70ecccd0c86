package vaultindex

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// slowSource reads every file a millisecond late, as a slow disk would:
// a build of a few thousand notes then takes a second or more whatever
// the machine.
type slowSource struct{ *memSource }

func (s slowSource) ReadFile(p string) ([]byte, error) {
	time.Sleep(time.Millisecond)
	return s.memSource.ReadFile(p)
}

func bigVault(n int) *memSource {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("N/%05d.md", i)] = fmt.Sprintf("note %d about the lighthouse #tag%d\n", i, i%3)
	}
	return newMem(files)
}

// waitBuilding waits until ix is in a large build.
func waitBuilding(t *testing.T, ix *Index) *building {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b := ix.build.Load(); b != nil {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatal("no build began within 30 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSearchDuringBuild(t *testing.T) {
	t.Parallel()
	const n = 4000
	ix := New(slowSource{bigVault(n)}, WithPatience(50*time.Millisecond))
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	var first note.SearchResult
	go func() {
		defer wg.Done()
		var err error
		first, err = ix.Search(ctx, note.SearchRequest{Query: "lighthouse", Limit: 5}) // it builds
		if err != nil {
			t.Error(err)
		}
	}()
	b := waitBuilding(t, ix)

	// A search out of patience answers from the notes indexed so far.
	var reports [][2]int
	var mu sync.Mutex
	pctx := note.WithProgress(ctx, func(done, total int, _ string) {
		mu.Lock()
		reports = append(reports, [2]int{done, total})
		mu.Unlock()
	})
	res, err := ix.Search(pctx, note.SearchRequest{Query: "lighthouse", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partial == nil || res.Partial.Notes != n || res.Partial.Indexed >= n || res.Total != res.Partial.Indexed {
		t.Errorf("a search during the build: partial %+v, total %d; want a part of %d notes, each a hit", res.Partial, res.Total, n)
	}
	select {
	case <-b.done:
		t.Error("the build ended before the partial answer: the test proves nothing")
	default:
	}
	mu.Lock()
	if len(reports) == 0 || reports[0][1] != n {
		t.Errorf("progress reported %v, want reports out of %d", reports, n)
	}
	mu.Unlock()

	// A call that cannot answer in part waits for the whole.
	tags, err := ix.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, tc := range tags {
		sum += tc.Count
	}
	if sum != n {
		t.Errorf("tags counted in %d notes during the build, want %d", sum, n)
	}
	wg.Wait()
	// The search that started the build waits for it as any other.
	if first.Partial == nil || first.Total != first.Partial.Indexed || first.Partial.Indexed >= n {
		t.Errorf("the search that started the build: partial %+v, total %d; want a part of %d", first.Partial, first.Total, n)
	}
	after, err := ix.Search(ctx, note.SearchRequest{Query: "lighthouse", Limit: 5})
	if err != nil || after.Partial != nil || after.Total != n {
		t.Errorf("after the build: %+v, %v", after, err)
	}
}

// counted counts a source's reads.
type counted struct {
	Source
	reads atomic.Int64
}

func (c *counted) ReadFile(p string) ([]byte, error) {
	c.reads.Add(1)
	return c.Source.ReadFile(p)
}

// TestOneBuildsOthersWait: two indexes of one vault sharing a store, as
// two server processes share the saved index: while the first builds, the
// second waits for its snapshot and reads no note itself.
func TestOneBuildsOthersWait(t *testing.T) {
	t.Parallel()
	const n = 3000
	files := bigVault(n)
	st := newStore()
	a, b := &counted{Source: slowSource{files}}, &counted{Source: slowSource{files}}
	ixA, ixB := New(a, WithStore(st, "vault"), WithPatience(0)), New(b, WithStore(st, "vault"), WithPatience(0))
	ctx := context.Background()
	done := make(chan []note.TagCount, 1)
	go func() {
		tags, err := ixA.Tags(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- tags
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st.mu.Lock()
		held := st.building != nil
		st.mu.Unlock()
		if held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first index took no build lock within 30 s")
		}
		time.Sleep(time.Millisecond)
	}
	tagsB, err := ixB.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tagsA := <-done
	if !reflect.DeepEqual(tagsA, tagsB) {
		t.Errorf("the two indexes count tags otherwise:\n%v\n%v", tagsA, tagsB)
	}
	if a.reads.Load() != n || b.reads.Load() != 0 {
		t.Errorf("the builder read %d notes, the waiter %d; want %d and 0", a.reads.Load(), b.reads.Load(), n)
	}
	ixA.Close()
	ixB.Close()
}

// lateSnapshot is a store in which another process's snapshot appears
// between this process's first look for one (none yet) and its taking of
// the build lock: the other built the index, saved it and let go of the
// lock in between.
type lateSnapshot struct {
	*memStore
	snapshot []byte
}

func (s *lateSnapshot) TryBuild() (func(), bool) {
	s.set(s.snapshot)
	return s.memStore.TryBuild()
}

// TestSnapshotSavedJustBeforeTheBuildLockIsLoaded: a process that finds
// no snapshot, then gets the build lock because another process has just
// saved its snapshot and let go, loads that snapshot and reads no note,
// instead of building the index a second time.
func TestSnapshotSavedJustBeforeTheBuildLockIsLoaded(t *testing.T) {
	t.Parallel()
	const n = 3000
	files := bigVault(n)
	other := newStore()
	first := New(slowSource{files}, WithStore(other, "vault"), WithPatience(0))
	if _, err := first.Tags(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitPublished(t, other)
	first.Close()
	late := &lateSnapshot{memStore: newStore(), snapshot: other.bytes()}
	src := &counted{Source: slowSource{files}}
	ix := New(src, WithStore(late, "vault"), WithPatience(0))
	defer ix.Close()
	if _, err := ix.Tags(context.Background()); err != nil {
		t.Fatal(err)
	}
	if read := src.reads.Load(); read != 0 {
		t.Errorf("%d notes read: the index was built again beside the snapshot saved meanwhile", read)
	}
}
