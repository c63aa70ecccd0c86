package native

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The relevance vault: 10,000 generated notes (2,000 under the race
// detector, which is slow) around the hand-written relevance notes.
var (
	genOnce sync.Once
	genDir  string
	genErr  error
)

func generated(tb testing.TB) string {
	tb.Helper()
	genOnce.Do(func() {
		n := 10_000
		if raceEnabled {
			n = 2_000
		}
		genDir, genErr = os.MkdirTemp("", "obsidian-mcp-relevance-")
		if genErr == nil {
			_, genErr = vaultgen.Generate(genDir, n, 1)
		}
	})
	if genErr != nil {
		tb.Fatal(genErr)
	}
	return genDir
}

// TestRelevance: the labelled queries of internal/vaultgen/relevance find
// their note in the top 3 at least 90% of the time.
func TestRelevance(t *testing.T) {
	v, err := Open(generated(t))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	queries, err := vaultgen.Queries()
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) < 30 {
		t.Fatalf("only %d labelled queries", len(queries))
	}
	hits := 0
	for _, q := range queries {
		res, err := v.Search(context.Background(), note.SearchRequest{Query: q.Query, Mode: note.SearchText, Limit: 3})
		if err != nil {
			t.Errorf("%q: %v", q.Query, err)
			continue
		}
		found := false
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Path)
			found = found || h.Path == q.Expect
		}
		if found {
			hits++
		} else {
			t.Logf("miss: %q wants %s, top 3: %q (of %d)", q.Query, q.Expect, got, res.Total)
		}
	}
	rate := float64(hits) / float64(len(queries))
	t.Logf("relevance: %d of %d queries (%.0f%%) find their note in the top 3", hits, len(queries), 100*rate)
	if rate < 0.9 {
		t.Errorf("top-3 hit rate %.0f%%, want at least 90%%", 100*rate)
	}
}

// BenchmarkSearchWarm: one search on the 10,000-note vault, index built.
func BenchmarkSearchWarm(b *testing.B) {
	v, err := Open(generated(b))
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	qs := []string{"garden plan", "quarterly business review", `"action items"`, "sourdough", "project -draft tag:work", "東京"}
	if _, err := v.Search(ctx, note.SearchRequest{Query: "x", Limit: 20}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := v.Search(ctx, note.SearchRequest{Query: qs[i%len(qs)], Mode: note.SearchText, Limit: 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexBuild: the first search on a freshly opened vault, which
// builds the index.
func BenchmarkIndexBuild(b *testing.B) {
	dir := generated(b)
	for b.Loop() {
		v, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := v.Search(context.Background(), note.SearchRequest{Query: "garden", Limit: 20}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(t0).Milliseconds()), "ms/build")
		_ = v.Close()
	}
}
