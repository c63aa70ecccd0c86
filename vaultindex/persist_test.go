package vaultindex

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// memStore is a Store in memory; published signals each snapshot saved.
// It offers Builds, with a lock of its own.
type memStore struct {
	mu        sync.Mutex
	data      []byte
	busy      bool
	published chan struct{}
	building  chan struct{} // not nil while a build lock is held; closed on release
}

func newStore() *memStore { return &memStore{published: make(chan struct{}, 16)} }

func (s *memStore) TryBuild() (func(), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.building != nil {
		return nil, false
	}
	ch := make(chan struct{})
	s.building = ch
	return func() {
		s.mu.Lock()
		s.building = nil
		s.mu.Unlock()
		close(ch)
	}, true
}

func (s *memStore) WaitBuilt(ctx context.Context) error {
	s.mu.Lock()
	ch := s.building
	s.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *memStore) Open() (io.ReadSeekCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return nil, fs.ErrNotExist
	}
	return readSeekCloser{bytes.NewReader(s.data)}, nil
}

type readSeekCloser struct{ *bytes.Reader }

func (readSeekCloser) Close() error { return nil }

func (s *memStore) Publish(write func(io.Writer) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return ErrBusy
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	s.data = b.Bytes()
	s.published <- struct{}{}
	return nil
}

func (s *memStore) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.data)
}

func (s *memStore) set(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data = b
}

// answers is everything the index answers about a vault, to compare an
// index loaded from a snapshot with one built from the notes.
func answers(t *testing.T, ix *Index, src *memSource) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	for _, q := range []string{"garden plan", "tomato", `"early spring"`, "garden -tomatoes", "庭園", "[status:doing]", "tag:#project", "spring OR café"} {
		res, err := ix.Search(ctx, searchReq(q))
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		out["search "+q] = res
	}
	tags, err := ix.Tags(ctx)
	out["tags"] = tags
	props, err2 := ix.Properties(ctx)
	out["properties"] = props
	unres, err3 := ix.Unresolved(ctx)
	out["unresolved"] = unres
	orph, err4 := ix.Orphans(ctx)
	out["orphans"] = orph
	files, _ := src.Files()
	for _, p := range files {
		bl, err := ix.Backlinks(ctx, p)
		if err == nil {
			out["backlinks "+p] = bl
		}
	}
	for _, err := range []error{err, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func saved(t *testing.T, src *memSource) *memStore {
	t.Helper()
	st := newStore()
	ix := New(src, WithStore(st, "vault"))
	if _, err := ix.Search(context.Background(), searchReq("garden")); err != nil {
		t.Fatal(err)
	}
	waitPublished(t, st)
	ix.Close()
	return st
}

func waitPublished(t *testing.T, st *memStore) {
	t.Helper()
	select {
	case <-st.published:
	case <-time.After(30 * time.Second):
		t.Fatal("no snapshot saved within 30 s")
	}
}

func TestSnapshotServesWithoutReading(t *testing.T) {
	t.Parallel()
	src := newMem(testVault)
	st := saved(t, src)
	want := answers(t, New(src), src)

	src.reads = 0
	ix := New(src, WithStore(st, "vault"))
	if _, err := ix.Tags(context.Background()); err != nil { // an answer that reads no note
		t.Fatal(err)
	}
	if src.reads != 0 {
		t.Errorf("a start from the snapshot read %d notes, want none", src.reads)
	}
	if got := answers(t, ix, src); !reflect.DeepEqual(got, want) {
		t.Errorf("answers from the snapshot differ from a fresh build:\n got %v\nwant %v", got, want)
	}
}

func TestSnapshotRereadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	src := newMem(testVault)
	st := saved(t, src)

	src.write("Journal/Monday.md", "Planted the garden beds today with kale.\n")
	src.remove("Archive/Old.md")
	src.write("Journal/Tuesday.md", "Kale again. [[Garden Plan]]\n")
	src.mu.Lock()
	src.ids["Recipes/Tomato Soup.md"] = 77 // replaced by another file of the same size and time
	src.mu.Unlock()

	before := src.reads
	ix := New(src, WithStore(st, "vault"))
	if _, err := ix.Tags(context.Background()); err != nil {
		t.Fatal(err)
	}
	if read := src.reads - before; read != 3 {
		t.Errorf("read %d files after a start from the snapshot, want 3 (changed, new, replaced)", read)
	}
	res, err := ix.Search(context.Background(), searchReq("kale"))
	if err != nil {
		t.Fatal(err)
	}
	// The two notes that say it, and the one Tuesday's line links to,
	// found by that link's text (from the snapshot's words of it too).
	if got := paths(res); len(got) != 3 || !reflect.DeepEqual(got[2:], []string{"Projects/Garden Plan.md"}) ||
		!reflect.DeepEqual(got[:2], []string{"Journal/Monday.md", "Journal/Tuesday.md"}) && !reflect.DeepEqual(got[:2], []string{"Journal/Tuesday.md", "Journal/Monday.md"}) {
		t.Errorf("kale found in %v", got)
	}
	if !reflect.DeepEqual(answers(t, ix, src), answers(t, New(src), src)) {
		t.Error("a start from an old snapshot answers otherwise than a fresh build")
	}
}

func TestSnapshotNotTrusted(t *testing.T) {
	t.Parallel()
	good := saved(t, newMem(testVault)).bytes()
	foreign := func(h snapHeader) []byte {
		var b bytes.Buffer
		_ = gob.NewEncoder(&b).Encode(&h)
		return append(b.Bytes(), good[len(good)/2:]...)
	}
	flip := func(at int) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x10
		return b
	}
	cases := map[string][]byte{
		"empty":          {},
		"garbage":        []byte("not a snapshot at all, just some bytes"),
		"truncated":      good[:len(good)/2],
		"last byte gone": good[:len(good)-1],
		"flipped early":  flip(len(good) / 4),
		"flipped middle": flip(len(good) / 2),
		"flipped late":   flip(len(good) - 12),
		"other version":  foreign(snapHeader{Format: snapFormat, Version: snapVersion + 1, Tag: "vault"}),
		"other format":   foreign(snapHeader{Format: "something else", Version: snapVersion, Tag: "vault"}),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := newMem(testVault)
			st := newStore()
			st.set(data)
			ix := New(src, WithStore(st, "vault"))
			if !reflect.DeepEqual(answers(t, ix, src), answers(t, New(src), src)) {
				t.Error("answers differ from a fresh build")
			}
			if src.reads < len(testVault)-1 {
				t.Errorf("read %d notes: the snapshot was used", src.reads)
			}
			waitPublished(t, st) // and a good one replaces it
			if _, err := readSnapshot(bytes.NewReader(st.bytes()), "vault", nil); err != nil {
				t.Errorf("the snapshot saved after rebuilding does not read back: %v", err)
			}
		})
	}
	t.Run("other vault", func(t *testing.T) {
		t.Parallel()
		src := newMem(testVault)
		st := newStore()
		st.set(good)
		answers(t, New(src, WithStore(st, "another vault")), src)
		if src.reads < len(testVault)-1 {
			t.Errorf("read %d notes: another vault's snapshot was used", src.reads)
		}
	})
}

func TestSnapshotSavedWhenDue(t *testing.T) {
	t.Parallel()
	src := newMem(testVault)
	st := newStore()
	ix := New(src, WithStore(st, "vault"))
	ctx := context.Background()
	if _, err := ix.Search(ctx, searchReq("garden")); err != nil {
		t.Fatal(err)
	}
	waitPublished(t, st) // the first build is saved
	ix.Close()
	src.write("Journal/Monday.md", "changed")
	if _, err := ix.Search(ctx, searchReq("garden")); err != nil {
		t.Fatal(err)
	}
	ix.mu.Lock()
	due, dirty := ix.saveDue(), ix.keep.dirty
	ix.mu.Unlock()
	if due || dirty != 1 {
		t.Errorf("after one change: save due %v, dirty %d; want not due, 1", due, dirty)
	}
	for i := range minDirty {
		src.write("Journal/Monday.md", string(rune('a'+i%26)))
		if _, err := ix.Search(ctx, searchReq("garden")); err != nil {
			t.Fatal(err)
		}
	}
	waitPublished(t, st)
	// The save made due ran on its own goroutine, between two of the
	// searches above or after the last: what changed after it is saved
	// now, so that nothing is left to save.
	ix.Close()
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	// Another process saving: this one leaves it and tries later.
	st.mu.Lock()
	st.busy = true
	st.mu.Unlock()
	if err := ix.Save(); err != nil {
		t.Errorf("Save with nothing changed: %v", err)
	}
	src.write("Journal/Monday.md", "again")
	if _, err := ix.Search(ctx, searchReq("garden")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Save(); err != ErrBusy {
		t.Errorf("Save while another process saves: %v, want ErrBusy", err)
	}
}

func searchReq(q string) note.SearchRequest { return note.SearchRequest{Query: q, Limit: 20} }

// TestSnapshotEveryFlipDetected: a snapshot with any one bit changed is
// refused (the checksum covers every byte before it), never half used.
func TestSnapshotEveryFlipDetected(t *testing.T) {
	t.Parallel()
	good := saved(t, newMem(testVault)).bytes()
	if _, err := readSnapshot(bytes.NewReader(good), "vault", nil); err != nil {
		t.Fatalf("the good snapshot: %v", err)
	}
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 1 << (i % 8)
		if _, err := readSnapshot(bytes.NewReader(b), "vault", nil); err == nil {
			t.Fatalf("bit %d of byte %d of %d changed, and the snapshot was accepted", i%8, i, len(good))
		}
	}
}

// TestDeadPostingsAndCompaction: notes changed and removed one at a time
// leave dead postings until a compaction drops them; at every step the
// index answers exactly as one built afresh (scores included: a dead
// posting is no document frequency), and a snapshot of it too.
func TestDeadPostingsAndCompaction(t *testing.T) {
	t.Parallel()
	files := maps.Clone(testVault)
	for i := range 150 {
		files[fmt.Sprintf("Filler/%03d.md", i)] = fmt.Sprintf("filler garden note %d, spring #tag%d\n", i, i%4)
	}
	src := newMem(files)
	ix := New(src)
	ctx := context.Background()
	answers(t, ix, src)
	compacted := false
	for i := range 100 {
		switch i % 3 {
		case 0:
			src.write(fmt.Sprintf("Filler/%03d.md", i), fmt.Sprintf("rewritten %d: tomato garden\n", i))
		case 1:
			src.remove(fmt.Sprintf("Filler/%03d.md", i))
		default:
			src.write(fmt.Sprintf("Filler/new %03d.md", i), "a new note on spring frost\n")
		}
		if _, err := ix.Tags(ctx); err != nil {
			t.Fatal(err)
		}
		ix.mu.Lock()
		dead := ix.dead
		ix.mu.Unlock()
		if dead == 0 && i > 0 {
			compacted = true
		}
		if i%10 == 9 {
			if !reflect.DeepEqual(answers(t, ix, src), answers(t, New(src), src)) {
				t.Fatalf("after %d changes (%d dead postings' notes) the answers differ from a fresh build", i+1, dead)
			}
		}
	}
	if !compacted {
		t.Error("100 changes never compacted the index")
	}
	st := newStore()
	ix2 := New(src, WithStore(st, "vault")) // loads on its first answer, after the save
	ix.keep = &keeper{store: st, tag: "vault", dirty: 1}
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(answers(t, ix2, src), answers(t, New(src), src)) {
		t.Error("the snapshot of a changed index answers otherwise than a fresh build")
	}
}

// TestSnapshotOfManyNotes: a vault of several chunks of notes (each
// note's fields varied, some empty) reads back as it was.
func TestSnapshotOfManyNotes(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 3*docChunk + 17 {
		var b strings.Builder
		if i%3 == 0 {
			fmt.Fprintf(&b, "---\nstatus: s%d\naliases: [A%d]\n---\n", i%5, i)
		}
		if i%4 == 0 {
			fmt.Fprintf(&b, "# Heading %d\n", i)
		}
		fmt.Fprintf(&b, "body %d #t%d", i, i%7)
		if i%2 == 0 {
			fmt.Fprintf(&b, " [[N%05d]]", (i+1)%500)
		}
		files[fmt.Sprintf("N%05d.md", i)] = b.String()
	}
	src := newMem(files)
	st := saved(t, src)
	ix := New(src, WithStore(st, "vault"))
	ctx := context.Background()
	before := src.reads
	if _, err := ix.Tags(ctx); err != nil {
		t.Fatal(err)
	}
	if read := src.reads - before; read != 0 {
		t.Errorf("%d notes read after loading the snapshot, want none", read)
	}
	for _, f := range []func(*Index) (any, error){
		func(ix *Index) (any, error) { return ix.Tags(ctx) },
		func(ix *Index) (any, error) { return ix.Properties(ctx) },
		func(ix *Index) (any, error) { return ix.Unresolved(ctx) },
		func(ix *Index) (any, error) { return ix.Orphans(ctx) },
		func(ix *Index) (any, error) { return ix.Search(ctx, searchReq("heading body")) },
	} {
		got, err1 := f(ix)
		want, err2 := f(New(src))
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("from the snapshot: %v (%v)\nfresh: %v (%v)", got, err1, want, err2)
		}
	}
}

func TestCheckSnapshot(t *testing.T) {
	t.Parallel()
	good := saved(t, newMem(testVault)).bytes()
	info, err := CheckSnapshot(bytes.NewReader(good), "vault")
	if err != nil || info.Notes != len(testVault)-1 || time.Since(info.Saved) > time.Hour {
		t.Errorf("a good snapshot: %+v, %v", info, err)
	}
	for _, at := range []int{len(good) / 2, len(good) - 10, len(good) - 2} {
		bad := bytes.Clone(good)
		bad[at] ^= 1
		if _, err := CheckSnapshot(bytes.NewReader(bad), "vault"); err == nil {
			t.Errorf("a snapshot damaged at byte %d of %d passed", at, len(good))
		}
	}
	if _, err := CheckSnapshot(bytes.NewReader(good), "other"); err == nil {
		t.Error("another vault's snapshot passed")
	}
}
