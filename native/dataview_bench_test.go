package native

import (
	"context"
	"fmt"
	"os"
	"runtime"
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

func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse) / (1 << 20)
}

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
		heap := map[string]float64{}
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
			heap["index with pages"] = heapMB()
			start := time.Now()
			if _, err := v.QueryDataview(ctx, note.DataviewQuery{Query: vaultgen.DataviewQueries()[0].Query}); err != nil {
				b.Fatal(err)
			}
			first := time.Since(start)
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
			b.Logf("%d notes: first query %v; heap in use: index alone %.0f MB, with Dataview's pages %.0f MB, after the queries %.0f MB; RSS %.0f MB",
				n, first.Round(time.Millisecond), heap["index alone"], heap["index with pages"], heap["after the queries"], rss())
			v.Close()
		}
	}
}
