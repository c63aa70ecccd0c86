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
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func main() {
	vault := flag.String("vault", "", "the vault folder (for the Help vault: the folder holding en/)")
	file := flag.String("questions", "", "the labelled questions (JSON)")
	show := flag.Bool("v", false, "print every question with the rank of its note")
	words := flag.String("words", "", "also check these words (comma-separated) against a plain scan: every note under -in whose text has one must be found by it")
	in := flag.String("in", "", "the folder -words are checked in (for the Help vault: ja or zh)")
	flag.Parse()
	if *vault == "" || *file == "" && *words == "" || (*words == "") != (*in == "") {
		fmt.Fprintln(os.Stderr, "usage: relevance -vault DIR [-questions FILE [-v]] [-in FOLDER -words W1,W2,...]")
		os.Exit(2)
	}
	v, err := native.Open(*vault, native.WithSavedIndex("off"))
	check(err)
	defer v.Close()
	ctx := context.Background()
	if *words != "" {
		check(scanWords(ctx, v, *vault, *in, strings.Split(*words, ",")))
	}
	if *file == "" {
		return
	}
	qs, err := vaultgen.LoadLabelled(*file)
	check(err)
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

// scanWords prints, for each word, how many of the notes under folder
// whose text holds it (a plain scan, as grep finds them) its search finds.
func scanWords(ctx context.Context, v *native.Engine, vault, folder string, words []string) error {
	texts := map[string]string{}
	err := filepath.WalkDir(filepath.Join(vault, folder), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(vault, p)
		texts[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("| word (in %s/) | notes a plain scan finds | of those, search finds |\n|---|---|---|\n", folder)
	for _, w := range words {
		found := map[string]bool{}
		for off := 0; ; {
			res, err := v.Search(ctx, note.SearchRequest{Query: w, Folder: folder, Offset: off, Limit: 100})
			if err != nil {
				return err
			}
			for _, h := range res.Hits {
				found[h.Path] = true
			}
			off += len(res.Hits)
			if len(res.Hits) == 0 || off >= res.Total {
				break
			}
		}
		scan, both := 0, 0
		for p, text := range texts {
			if strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
				scan++
				if found[p] {
					both++
				}
			}
		}
		fmt.Printf("| %s | %d | %d |\n", w, scan, both)
	}
	fmt.Println()
	return nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "relevance:", err)
		os.Exit(1)
	}
}
