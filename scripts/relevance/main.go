// Command relevance measures search on a real vault nobody here wrote,
// with labelled questions written elsewhere: hit@1, hit@3 and MRR@10 per
// question style, from the engine the server runs on (native). The vault
// and the questions are given, never kept in this repository: Obsidian's
// Help vault carries no licence, and questions tuned against are no
// measure. `make relevance` says where to get both.
//
// The questions file is JSON: {"queries": [{"q": "...", "want": ["en/Path.md", ...], "style": "question"}]};
// a question hits at k when its first wanted note is among the first k
// results; MRR@10 takes the best-ranked wanted note.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type question struct {
	Q     string   `json:"q"`
	Want  []string `json:"want"`
	Style string   `json:"style"`
}

func main() {
	vault := flag.String("vault", "", "the vault folder (for the Help vault: the folder holding en/)")
	file := flag.String("questions", "", "the labelled questions (JSON)")
	show := flag.Bool("v", false, "print every question with the rank of its note")
	flag.Parse()
	if *vault == "" || *file == "" {
		fmt.Fprintln(os.Stderr, "usage: relevance -vault DIR -questions FILE [-v]")
		os.Exit(2)
	}
	data, err := os.ReadFile(*file)
	check(err)
	var qs struct{ Queries []question }
	check(json.Unmarshal(data, &qs))
	v, err := native.Open(*vault, native.WithSavedIndex("off"))
	check(err)
	defer v.Close()
	ctx := context.Background()
	by := map[string]*vaultgen.Score{}
	all := &vaultgen.Score{}
	var took []time.Duration
	for _, q := range qs.Queries {
		start := time.Now()
		res, err := v.Search(ctx, note.SearchRequest{Query: q.Q, Limit: 10})
		took = append(took, time.Since(start))
		check(err)
		rank := 0 // 1-based rank of the best wanted note, 0 if none in 10
		first := 0
		for i, h := range res.Hits {
			if slices.Contains(q.Want, h.Path) && rank == 0 {
				rank = i + 1
			}
			if h.Path == q.Want[0] && first == 0 {
				first = i + 1
			}
		}
		if by[q.Style] == nil {
			by[q.Style] = &vaultgen.Score{}
		}
		all.Add(first, rank)
		by[q.Style].Add(first, rank)
		if *show {
			top := ""
			if len(res.Hits) > 0 {
				top = res.Hits[0].Path
			}
			fmt.Printf("%2d  %-70.70q  top: %s\n", rank, q.Q, top)
		}
	}
	sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
	styles := make([]string, 0, len(by))
	for s := range by {
		styles = append(styles, s)
	}
	sort.Strings(styles)
	fmt.Printf("| questions | n | hit@1 | hit@3 | MRR@10 |\n|---|---|---|---|---|\n")
	for _, name := range append(styles, "all") {
		s := all
		if name != "all" {
			s = by[name]
		}
		fmt.Printf("| %s | %d | %d/%d | %d/%d | %.2f |\n", name, s.N, s.Hit1, s.N, s.Hit3, s.N, s.RR/float64(s.N))
	}
	fmt.Printf("\nsearch p50 %v (warm after the first, which builds the index: %v)\n", took[len(took)/2], took[len(took)-1])
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "relevance:", err)
		os.Exit(1)
	}
}
