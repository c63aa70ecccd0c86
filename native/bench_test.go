package native

import (
	"context"
	"fmt"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// benchNotes is the size of the generated vault the benchmarks run on.
const benchNotes = 10_000

var (
	benchOnce sync.Once
	benchDir  string
)

// benchVault returns a fresh copy-free vault of benchNotes notes in 100
// folders, each note a few hundred bytes with frontmatter and two links,
// generated once per test binary run.
func benchVault(b *testing.B) *Engine {
	b.Helper()
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "obsidian-mcp-bench-")
		if err != nil {
			b.Fatal(err)
		}
		for i := range 100 {
			if err := os.Mkdir(filepath.Join(dir, fmt.Sprintf("folder %02d", i)), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		for i := range benchNotes {
			p := filepath.Join(dir, fmt.Sprintf("folder %02d", i%100), fmt.Sprintf("Note %05d.md", i))
			body := fmt.Sprintf("---\ntags: [bench]\nn: %d\n---\n# Note %d\n\nSee [[Note %05d]] and [[Note %05d|the other]].\n%s\n",
				i, i, (i+1)%benchNotes, (i+7)%benchNotes, filler)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		// A real vault's folders were mostly last changed long ago; fresh
		// ones are listed again on every call (see racyWindow).
		old := time.Now().Add(-time.Hour)
		for i := range 100 {
			if err := os.Chtimes(filepath.Join(dir, fmt.Sprintf("folder %02d", i)), old, old); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.Chtimes(dir, old, old); err != nil {
			b.Fatal(err)
		}
		benchDir = dir
	})
	v, err := Open(benchDir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = v.Close() })
	return v
}

const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris."

func TestMain(m *testing.M) {
	// Journal keys and saved indexes go to folders of the tests' own.
	dirs, err := testenv.NewUserDirs()
	if err == nil {
		dirs.Apply(os.Setenv)
	}
	code := m.Run()
	if dirs != nil {
		dirs.Remove()
	}
	for _, dir := range []string{benchDir, genDir} {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func BenchmarkRead(b *testing.B) {
	v := benchVault(b)
	ctx := context.Background()
	b.Run("by_path", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := v.Read(ctx, note.ByPath(fmt.Sprintf("folder %02d/Note %05d.md", i%100, i%benchNotes))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by_name", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := v.Read(ctx, note.ByName(fmt.Sprintf("Note %05d", i%benchNotes))); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkResolveName(b *testing.B) {
	v := benchVault(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if _, err := v.locate(ctx, note.ByName(fmt.Sprintf("note %05d", i%benchNotes))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreate(b *testing.B) {
	v := benchVault(b)
	ctx := context.Background()
	b.Cleanup(func() { _ = os.RemoveAll(filepath.Join(benchDir, "created")) })
	for i := 0; b.Loop(); i++ {
		if _, err := v.Create(ctx, note.CreateRequest{Path: fmt.Sprintf("created/%s/New %d.md", b.Name(), i), Content: filler}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	v := benchVault(b)
	ctx := context.Background()
	p := "scratch/append.md"
	b.Cleanup(func() { _ = os.RemoveAll(filepath.Join(benchDir, "scratch")) })
	if _, err := v.Create(ctx, note.CreateRequest{Path: p, Overwrite: true}); err != nil {
		b.Fatal(err)
	}
	// Each append is timed on its own, so the report gives the median and
	// the tail beside the mean.
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := v.Append(ctx, note.ByPath(p), "- one more line", false); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkMoveWithBacklinks renames a note back and forth: with 100
// notes linking to it (300 links rewritten each time), and with none (the
// cost of checking the whole vault for links).
func BenchmarkMoveWithBacklinks(b *testing.B) {
	v := benchVault(b)
	ctx := context.Background()
	b.Cleanup(func() { _ = os.RemoveAll(filepath.Join(benchDir, "linked")) })
	if _, err := v.Create(ctx, note.CreateRequest{Path: "linked/Target A.md", Content: "the target\n"}); err != nil {
		b.Fatal(err)
	}
	if _, err := v.Create(ctx, note.CreateRequest{Path: "linked/Lonely A.md", Content: "nobody links here\n"}); err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		body := fmt.Sprintf("Link %d: [[Target A]], ![[Target A#Part|x]] and [md](Target%%20A.md).\n", i)
		if _, err := v.Create(ctx, note.CreateRequest{Path: fmt.Sprintf("linked/src/Src %03d.md", i), Content: body}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, stem   string
		links, notes int
	}{{"100_backlinks", "Target", 300, 100}, {"no_backlinks", "Lonely", 0, 0}} {
		names := [2]string{c.stem + " A", c.stem + " B"}
		cur := 0 // which name the note has now; kept across b.Run's rounds
		b.Run(c.name, func(b *testing.B) {
			var last note.Moved
			for b.Loop() {
				m, err := v.Rename(ctx, note.ByPath("linked/"+names[cur]+".md"), names[1-cur])
				if err != nil {
					b.Fatal(err)
				}
				cur, last = 1-cur, m
			}
			if last.Links == nil || last.Links.Notes != c.notes || last.Links.Links != c.links {
				b.Fatalf("last move rewrote %+v, want %d links in %d notes", last.Links, c.links, c.notes)
			}
		})
	}
}
