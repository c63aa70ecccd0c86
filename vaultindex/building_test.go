package vaultindex

import (
	"bytes"
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
	if sum := taggedNotes(t, ix); sum != n {
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

// taggedNotes is how many notes ix counts tags in (each note of bigVault
// has one tag), waiting for any build.
func taggedNotes(t *testing.T, ix *Index) int {
	t.Helper()
	tags, err := ix.Tags(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, tc := range tags {
		sum += tc.Count
	}
	return sum
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

// TestBuildStoppedPartWayIsSaved: a client that starts the server for one
// search and exits closes the index during its first build. What was read
// is saved, and the next start reads only the notes it lacks, then answers
// with every note.
func TestBuildStoppedPartWayIsSaved(t *testing.T) {
	t.Parallel()
	const n = 3000
	files := bigVault(n)
	st := newStore()
	ix := New(slowSource{files}, WithStore(st, "vault"), WithPatience(time.Millisecond))
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := ix.Search(ctx, note.SearchRequest{Query: "lighthouse", Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Partial == nil {
			t.Fatalf("the build ended before the index was closed (%d): the test proves nothing", res.Total)
		}
		if res.Partial.Indexed >= 2*readBatch {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notes indexed after 30 s", res.Partial.Indexed)
		}
		time.Sleep(time.Millisecond)
	}
	ix.Close() // as the process ends
	saved, err := readSnapshot(bytes.NewReader(st.bytes()), "vault", nil)
	if err != nil {
		t.Fatalf("no snapshot of the part built: %v", err)
	}
	part := len(saved.docs)
	if part < 2*readBatch || part >= n {
		t.Fatalf("the snapshot holds %d notes; want the part read, of %d", part, n)
	}
	src := &counted{Source: files}
	next := New(src, WithStore(st, "vault"))
	// Tags reads no note for itself, as a search's snippets would.
	if sum := taggedNotes(t, next); sum != n {
		t.Errorf("the next start counted tags in %d notes, want all %d", sum, n)
	}
	if got := src.reads.Load(); got != int64(n-part) {
		t.Errorf("the next start read %d notes, want the %d the snapshot lacks", got, n-part)
	}
	next.Close()
}

// gatedSource holds the first listing of the vault until open is closed,
// and says when it began (listing): the moment a refresh holds the lock
// and has not yet registered the build it is about to start.
type gatedSource struct {
	slowSource
	once    sync.Once
	listing chan struct{}
	open    chan struct{}
}

func (g *gatedSource) Files() ([]string, error) {
	g.once.Do(func() {
		close(g.listing)
		<-g.open
	})
	return g.slowSource.Files()
}

// TestPatienceFromTheStart: a search that arrives while the first call's
// refresh holds the lock, before the build it starts is registered (as a
// client's first search right after initialize meets the server's own
// first call), still answers from the part indexed once its patience is
// out, rather than waiting for the whole build behind the lock (5 of 22
// first searches at 100,000 notes waited 30–52 s so).
func TestPatienceFromTheStart(t *testing.T) {
	t.Parallel()
	const n = 3000
	src := &gatedSource{slowSource: slowSource{bigVault(n)}, listing: make(chan struct{}), open: make(chan struct{})}
	ix := New(src, WithPatience(time.Millisecond))
	ctx := context.Background()
	first := make(chan error, 1)
	go func() {
		_, err := ix.Tags(ctx) // the server's first call: it waits for the whole build
		first <- err
	}()
	<-src.listing
	answer := make(chan note.SearchResult, 1)
	var reports atomic.Int32
	go func() {
		// It asks for progress, and gets it although it took the lock
		// between two batches rather than waiting for the build.
		ctx := note.WithProgress(ctx, func(done, total int, _ string) {
			if total == n && done < n {
				reports.Add(1)
			}
		})
		res, err := ix.Search(ctx, note.SearchRequest{Query: "lighthouse", Limit: 1})
		if err != nil {
			t.Error(err)
		}
		answer <- res
	}()
	deadline := time.Now().Add(30 * time.Second)
	for ix.queued.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the search did not queue for the lock within 30 s")
		}
		time.Sleep(time.Millisecond)
	}
	close(src.open)
	res := <-answer
	if res.Partial == nil || res.Partial.Indexed >= n {
		t.Errorf("the search answered %d notes, partial %+v: it waited for the whole build", res.Total, res.Partial)
	}
	if reports.Load() == 0 {
		t.Error("the search that answered from part of the build reported no progress")
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	ix.Close()
}
