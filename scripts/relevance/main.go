// Command relevance measures search on a real vault nobody here wrote, with
// labelled questions written elsewhere: hit@1, hit@3 and MRR@10 per
// question style and per half, from the engine the server runs on (native).
// It runs in process, the quick loop for a change to the ranking: weighed
// on half A, judged on half B (internal/vaultgen.Labelled, Halves). The
// vault and the questions are given, never kept in this repository:
// Obsidian's Help vault carries no licence, and questions tuned against
// are no measure. `make relevance` also runs the same questions through
// the server binary and mcpvault side by side (scripts/benchrun -relevance).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func main() {
	vault := flag.String("vault", "", "the vault folder (for the Help vault: the folder holding en/)")
	file := flag.String("questions", "", "the labelled questions (JSON)")
	show := flag.Bool("v", false, "print every question with the rank of its note")
	flag.Parse()
	if *vault == "" || *file == "" {
		fmt.Fprintln(os.Stderr, "usage: relevance -vault DIR -questions FILE [-v]")
		os.Exit(2)
	}
	qs, err := vaultgen.LoadLabelled(*file)
	check(err)
	v, err := native.Open(*vault, native.WithSavedIndex("off"))
	check(err)
	defer v.Close()
	ctx := context.Background()
	tally := vaultgen.Tally{}
	var took []time.Duration
	for i, q := range qs {
		start := time.Now()
		res, err := v.Search(ctx, note.SearchRequest{Query: q.Q, Limit: 10})
		took = append(took, time.Since(start))
		check(err)
		var paths []string
		for _, h := range res.Hits {
			paths = append(paths, h.Path)
		}
		tally.Add(i, q, paths)
		if *show {
			rank, top := 0, ""
			for r, p := range paths {
				if p == q.Want[0] {
					rank = r + 1
					break
				}
			}
			if len(paths) > 0 {
				top = paths[0]
			}
			fmt.Printf("%2d  %-70.70q  top: %s\n", rank, q.Q, top)
		}
	}
	tally.Print(os.Stdout, "questions")
	sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
	fmt.Printf("\nsearch p50 %v (the slowest, the first, builds the index: %v)\n", took[len(took)/2], took[len(took)-1])
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "relevance:", err)
		os.Exit(1)
	}
}
