package vaultindex

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// plainPhrase is the plain scan a phrase query must agree with: the notes
// whose text has the phrase's terms side by side, or whose title is them.
//
// seen keeps each text's terms: the scan is the test's oracle, and
// tokenizing every note again for each phrase was most of its time.
func plainPhrase(files map[string]string, phrase string, seen map[string][]string) []string {
	termsOf := func(s string) []string {
		if w, ok := seen[s]; ok {
			return w
		}
		w := terms(s)
		seen[s] = w
		return w
	}
	want := terms(phrase)
	var out []string
	for p, text := range files {
		for _, words := range [][]string{termsOf(text), termsOf(note.Stem(p))} {
			if slices.ContainsFunc(indexes(len(words)), func(i int) bool {
				return i+len(want) <= len(words) && slices.Equal(words[i:i+len(want)], want)
			}) {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestPhrasesAsAPlainScan: a quoted phrase finds exactly the notes a
// plain scan of their text finds: for random notes of a small vocabulary
// (so phrases recur, and words repeat within one), in Latin and CJK, with
// phrases of two to four words; after notes are rewritten and removed
// (dead postings, then a compaction); and from a snapshot. (It found
// that a phrase mixing CJK and other words looked for the CJK pairs
// after the rest: "競合 the views" as "the views 競合".) It runs with the
// positions in memory, and sealed in files (sealed.go) every few
// kilobytes, so that a build, the changes and the compaction each seal.
func TestPhrasesAsAPlainScan(t *testing.T) {
	t.Parallel()
	t.Run("in memory", func(t *testing.T) {
		t.Parallel()
		testPhrases(t, newStore(), nil, nil)
	})
	t.Run("sealed", func(t *testing.T) {
		t.Parallel()
		st := newScratchStore(t)
		testPhrases(t, st, func(ix *Index) { ix.sealAt = 2048 }, nil)
		if n := st.made.Load(); n < 5 {
			t.Errorf("%d files sealed, want several", n)
		}
	})
	t.Run("snapshot file", func(t *testing.T) {
		t.Parallel()
		st := fileStore{newScratchStore(t)}
		// Windows cannot rename a new snapshot over one held open: there
		// the positions are copied to a scratch file (readPositions).
		from := "snapshot-"
		if runtime.GOOS == "windows" {
			from = "positions-"
		}
		testPhrases(t, st, func(ix *Index) { ix.sealAt = 2048 }, func(ix *Index) {
			if f := ix.sealed.f; f == nil || !strings.HasPrefix(filepath.Base(f.Name()), from) {
				t.Errorf("the restart's positions are not read from a %s file", from)
			}
		})
	})
}

// fileStore is a scratchStore whose snapshot is opened as a file, as
// native's is: a restart reads the positions where they lie.
type fileStore struct{ *scratchStore }

func (s fileStore) Open() (io.ReadSeekCloser, error) {
	data := s.bytes()
	if data == nil {
		return nil, fs.ErrNotExist
	}
	f, err := os.CreateTemp(s.dir, "snapshot-*")
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	_, err = f.Seek(0, io.SeekStart)
	return f, err
}

// scratchStore is a memStore that offers Scratch files in dir.
type scratchStore struct {
	*memStore
	dir  string
	made atomic.Int32
	mu   sync.Mutex
	open []*os.File
}

// newScratchStore makes one whose files are closed before the test's
// folder is removed: the index keeps its last one open (Windows refuses
// to remove an open file).
func newScratchStore(t *testing.T) *scratchStore {
	s := &scratchStore{memStore: newStore(), dir: t.TempDir()}
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, f := range s.open {
			_ = f.Close()
		}
	})
	return s
}

func (s *scratchStore) ScratchFile() (*os.File, error) {
	s.made.Add(1)
	f, err := os.CreateTemp(s.dir, "positions-*")
	if err == nil {
		s.mu.Lock()
		s.open = append(s.open, f)
		s.mu.Unlock()
	}
	return f, err
}

// testPhrases runs the test on st; restartedHook, when not nil, is given
// the first index loaded from st's snapshot.
func testPhrases(t *testing.T, st interface {
	Store
	bytes() []byte
}, opt Option, restartedHook func(*Index)) {
	opts := []Option{WithStore(st, "vault")}
	if opt != nil {
		opts = append(opts, opt)
	}
	r := rand.New(rand.NewPCG(5, 6))
	vocab := []string{"graph", "view", "the", "note", "Graph", "views", "canvas", "同期", "競合", "链接"}
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString([]string{" ", " ", ", ", "\n", "-"}[r.IntN(5)])
			}
			b.WriteString(vocab[r.IntN(len(vocab))])
		}
		return b.String()
	}
	files := map[string]string{}
	seen := map[string][]string{} // plainPhrase's
	for i := range 300 {
		files[fmt.Sprintf("N%03d %s %s.md", i, vocab[r.IntN(3)], vocab[r.IntN(3)])] = text(5 + r.IntN(40))
	}
	src := newMem(files)
	ix := New(src, opts...)
	ctx := context.Background()
	check := func(stage string, ix *Index) {
		t.Helper()
		for range testenv.Rounds(15, 60) {
			words := make([]string, 2+r.IntN(3))
			for i := range words {
				words[i] = vocab[r.IntN(len(vocab))]
			}
			phrase := strings.Join(words, " ")
			res, err := ix.Search(ctx, note.SearchRequest{Query: `"` + phrase + `"`, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			got := paths(res)
			slices.Sort(got)
			if want := plainPhrase(files, phrase, seen); !slices.Equal(got, want) {
				t.Fatalf("%s: %q found %d notes, a plain scan %d:\n got %q\nwant %q", stage, phrase, len(got), len(want), got, want)
			}
		}
	}
	change := func(ix *Index, stage string) {
		t.Helper()
		for i := range 150 { // rewrites and removals, past the compaction threshold
			p := fmt.Sprintf("N%03d %s %s.md", r.IntN(300), vocab[r.IntN(3)], vocab[r.IntN(3)])
			if _, ok := files[p]; ok && i%3 == 0 {
				delete(files, p)
				src.remove(p)
			} else {
				files[p] = text(5 + r.IntN(40))
				src.write(p, files[p])
			}
			if i%25 == 0 {
				check(fmt.Sprintf("%s, after %d changes", stage, i+1), ix)
			}
		}
		check(stage+", changed", ix)
		if err := ix.Save(); err != nil {
			t.Fatal(err)
		}
		loaded, err := readSnapshot(bytes.NewReader(st.bytes()), "vault", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded.docs) != len(files) {
			t.Fatalf("%s: snapshot of %d notes, want %d", stage, len(loaded.docs), len(files))
		}
	}
	check("built", ix)
	change(ix, "built")
	// A restart, then changes on what it loaded (sealing, compacting and
	// saving from it), and another restart.
	restarted := New(src, opts...)
	check("from the snapshot", restarted)
	if restartedHook != nil {
		restartedHook(restarted)
	}
	change(restarted, "restarted")
	check("from the second snapshot", New(src, opts...))
}

// TestPhraseIn: the matcher of a note's tokens against a phrase, with
// words repeated within the phrase and the text.
func TestPhraseIn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, phrase string
		want         bool
	}{
		{"a a a b", "a a b", true},
		{"a b a a c", "a a b", false},
		{"x the the note", "the note", true},
		{"the, note", "the note", true}, // punctuation is not a token
		{"note the", "the note", false},
		{"同期の競合について", "競合", true},
		{"", "a", false},
	} {
		if got := phraseIn(c.text, terms(c.phrase)); got != c.want {
			t.Errorf("phraseIn(%q, %q) = %v, want %v", c.text, c.phrase, got, c.want)
		}
	}
}

// TestHasRun: the walk of a phrase's positions agrees with trying every
// start, for random position lists (a term may stand at several places of
// the phrase: the same list twice).
func TestHasRun(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		k := 1 + r.IntN(4)
		lists := make([][]uint32, k)
		for i := range lists {
			if i > 0 && r.IntN(4) == 0 {
				lists[i] = lists[r.IntN(i)]
				continue
			}
			for p := uint32(r.IntN(3)); p < 40; p += 1 + uint32(r.IntN(6)) {
				lists[i] = append(lists[i], p)
			}
		}
		want := false
		for x := uint32(0); x < 40 && !want; x++ {
			want = true
			for i, l := range lists {
				want = want && slices.Contains(l, x+uint32(i))
			}
		}
		its := make([]posIter, k)
		for i, l := range lists {
			raw, _ := nextPositions(appendPositions(nil, l), 0)
			its[i] = posIter{raw: raw}
		}
		if got := hasRun(its); got != want {
			t.Fatalf("hasRun(%v) = %v, want %v", lists, got, want)
		}
	}
}
