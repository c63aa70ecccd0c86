package native

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// BenchmarkAppendRecorded is the cost of the change record on each write:
// appends to notes of a generated vault of 10,000 notes (its index built),
// one alone and one with its change recorded, taken in turn in one run,
// so that both meet the same machine. It reports the median of each and
// their ratio (docs/benchmarks.md). go test -run X -bench AppendRecorded
// -benchtime 2000x ./native
func BenchmarkAppendRecorded(b *testing.B) {
	dir := b.TempDir()
	if _, err := vaultgen.Generate(dir, 10000, 51); err != nil {
		b.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if _, err := v.Search(ctx, note.SearchRequest{Query: "note", Limit: 1}); err != nil {
		b.Fatal(err)
	}
	files, err := v.Files()
	if err != nil {
		b.Fatal(err)
	}
	r, err := changes.Open(b.TempDir(), dir, nil, changes.DefaultLimits)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var alone, recorded []time.Duration
	i := 0
	for b.Loop() {
		rec := i%2 == 1
		p := files[(i*7919)%len(files)]
		i++
		callCtx := ctx
		var pending *changes.Pending
		if rec {
			pending = r.Begin("obsidian_append_to_note", "bench")
			callCtx = changes.With(ctx, pending)
		}
		start := time.Now()
		if _, err := v.Append(callCtx, note.ByPath(p), fmt.Sprintf("line %d", i), false); err != nil {
			b.Fatal(err)
		}
		pending.End()
		if took := time.Since(start); rec {
			recorded = append(recorded, took)
		} else {
			alone = append(alone, took)
		}
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	if len(alone) > 0 && len(recorded) > 0 {
		a, r := median(alone), median(recorded)
		b.ReportMetric(float64(a.Microseconds()), "p50-alone-µs")
		b.ReportMetric(float64(r.Microseconds()), "p50-recorded-µs")
		b.ReportMetric(100*float64(r-a)/float64(a), "%-cost")
	}
}
