package native

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
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

// TestRelevance: the labelled queries of internal/vaultgen/relevance, in
// a 10,000-note generated vault, find their note: hit@1, hit@3 and the mean
// reciprocal rank (of the top 10), for keyword queries and for questions
// asked in sentences, each held to a floor.
func TestRelevance(t *testing.T) {
	testenv.StressOnly(t)
	v, err := Open(generated(t))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	queries, err := vaultgen.Queries()
	if err != nil {
		t.Fatal(err)
	}
	type score struct {
		n, hit1, hit3 int
		rr            float64
	}
	kinds := map[string]*score{"keyword": {}, "sentence": {}}
	langs := map[string]bool{}
	for _, q := range queries {
		s := kinds[q.Kind]
		if s == nil || q.Lang == "" {
			t.Fatalf("%q: kind %q, lang %q: want keyword or sentence, and a language", q.Query, q.Kind, q.Lang)
		}
		langs[q.Lang] = true
		res, err := v.Search(context.Background(), note.SearchRequest{Query: q.Query, Mode: note.SearchText, Limit: 10})
		if err != nil {
			t.Errorf("%q: %v", q.Query, err)
			continue
		}
		s.n++
		rank := 0
		var got []string
		for i, h := range res.Hits {
			got = append(got, h.Path)
			if h.Path == q.Expect && rank == 0 {
				rank = i + 1
			}
		}
		switch {
		case rank == 1:
			s.hit1++
			fallthrough
		case rank >= 1 && rank <= 3:
			s.hit3++
		}
		if rank > 0 {
			s.rr += 1 / float64(rank)
		}
		if rank == 0 || rank > 3 {
			t.Logf("miss (%s): %q wants %s at rank %d; top 3: %q (of %d)", q.Kind, q.Query, q.Expect, rank, got[:min(3, len(got))], res.Total)
		}
	}
	if len(queries) < 60 || kinds["sentence"].n*2 < len(queries)-1 || len(langs) < 3 {
		t.Errorf("the set has %d queries, %d sentences, %d languages: want 60, half of them sentences, 3 languages", len(queries), kinds["sentence"].n, len(langs))
	}
	floors := map[string]float64{"keyword": 0.9, "sentence": 0.8} // hit@3
	for _, k := range []string{"keyword", "sentence"} {
		s := kinds[k]
		n := float64(s.n)
		t.Logf("relevance, %s queries (%d): hit@1 %.0f%%, hit@3 %.0f%%, MRR %.2f", k, s.n, 100*float64(s.hit1)/n, 100*float64(s.hit3)/n, s.rr/n)
		if float64(s.hit3)/n < floors[k] {
			t.Errorf("%s queries: hit@3 %.0f%%, want at least %.0f%%", k, 100*float64(s.hit3)/n, 100*floors[k])
		}
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
