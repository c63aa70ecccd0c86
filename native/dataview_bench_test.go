package native

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func rss() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

func writeHeap(b *testing.B, name string) {
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// heapMB is the heap after a collection: the bytes of the spans that
// hold live objects (what stays resident) and of the objects.
func heapMB() heapFigure {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return heapFigure{live: float64(m.HeapAlloc) / (1 << 20), inUse: float64(m.HeapInuse) / (1 << 20)}
}

type heapFigure struct{ live, inUse float64 }

func (h heapFigure) String() string { return fmt.Sprintf("%.0f MB (%.0f MB live)", h.inUse, h.live) }

// BenchmarkDataview answers the queries warm at 10,000 and 100,000
// generated notes with inline fields and tasks (vaultgen.GenerateDataview),
// and reports the heap the index takes without Dataview's pages and with
// them, and after the queries (their pages serialised).
func BenchmarkDataview(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if s := os.Getenv("OBSIDIAN_MCP_BENCH_NOTES"); s != "" { // one size, e.g. to profile
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		sizes = []int{n}
	}
	for _, n := range sizes {
		dir := b.TempDir()
		if _, err := vaultgen.GenerateDataview(dir, n, 52); err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		heap := map[string]heapFigure{}
		for _, off := range []bool{true, false} {
			v, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			v.dvOff = off
			if _, err := v.Tags(ctx); err != nil {
				b.Fatal(err)
			}
			if off {
				heap["index alone"] = heapMB()
				v.Close()
				continue
			}
			start := time.Now()
			if _, err := v.QueryDataview(ctx, note.DataviewQuery{Query: vaultgen.DataviewQueries()[0].Query}); err != nil {
				b.Fatal(err)
			}
			first := time.Since(start)
			heap["index with pages"] = heapMB()                     // the first query makes them
			if f := os.Getenv("OBSIDIAN_MCP_BENCH_HEAP"); f != "" { // where the heap goes
				writeHeap(b, f)
			}
			for _, q := range vaultgen.DataviewQueries() {
				b.Run(fmt.Sprintf("%d/%s", n, q.Name), func(b *testing.B) {
					for b.Loop() {
						if _, err := v.QueryDataview(ctx, note.DataviewQuery{Query: q.Query}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			heap["after the queries"] = heapMB()
			b.Logf("%d notes: first query %v; heap in use: index alone %v, with Dataview's pages %v, after the queries %v; RSS %.0f MB",
				n, first.Round(time.Millisecond), heap["index alone"], heap["index with pages"], heap["after the queries"], rss())
			v.Close()
		}
	}
}
