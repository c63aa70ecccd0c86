// Command blevecompare measures bleve v2, the full-text engine the issue
// suggested, on the same generated vault as scripts/bench: build time,
// heap after the build, and search latency in process. It is a module of
// its own so that bleve stays out of obsidian-mcp's go.mod:
//
//	cd scripts/blevecompare && go run . ../../bench-out/search-vault-10000
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/blevesearch/bleve/v2"
)

type doc struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

func main() {
	dir := os.Args[1]
	m := bleve.NewIndexMapping()
	ix, err := bleve.NewMemOnly(m)
	if err != nil {
		panic(err)
	}
	t0 := time.Now()
	b := ix.NewBatch()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return nil
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		b.Index(rel, doc{Title: filepath.Base(p), Body: string(data)})
		n++
		if b.Size() >= 500 {
			ix.Batch(b)
			b = ix.NewBatch()
		}
		return nil
	})
	ix.Batch(b)
	build := time.Since(t0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("bleve: %d notes indexed in %v, heap after GC %d MB, sys %d MB\n", n, build, ms.HeapAlloc>>20, ms.Sys>>20)
	qs := []string{"sourdough starter", "quarterly business review", "garden plan", "tomato blight leaves", "kubectl rollout", "household budget emergency fund"}
	var ds []time.Duration
	for i := 0; i < 60; i++ {
		q := bleve.NewMatchQuery(qs[i%len(qs)])
		q.SetOperator(1) // AND, like ours
		req := bleve.NewSearchRequestOptions(q, 20, 0, false)
		req.Highlight = bleve.NewHighlight()
		t := time.Now()
		if _, err := ix.Search(req); err != nil {
			panic(err)
		}
		ds = append(ds, time.Since(t))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	fmt.Printf("bleve: search p50 %v p90 %v (in process, with highlighting, 20 hits)\n", ds[30], ds[54])
}
