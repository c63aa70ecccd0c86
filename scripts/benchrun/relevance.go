package main

import (
	"fmt"
	"io"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
)

// relevanceBench asks every server that names the notes it finds (ours,
// and mcpvault with the peers) the labelled questions of file about the
// vault in dir, 10 results each, and prints hit@1, hit@3 and MRR@10 side
// by side: the same copy of the vault, the same questions, over stdio as
// a client asks. The vault and the questions come from elsewhere
// (docs/benchmarks.md says where); nothing of either is kept here.
func relevanceBench(dir, file, bin, peers string, w io.Writer) error {
	qs, err := vaultgen.LoadLabelled(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n### Relevance: %d labelled questions on %s\n", len(qs), dir)
	for _, s := range searchers(dir, bin, peers, 10, nil) {
		if s.paths == nil {
			continue // its answer does not say which notes, in order
		}
		c, err := started(s.name, s.argv)
		if err != nil {
			return err
		}
		tally := vaultgen.Tally{}
		for i, q := range qs {
			tool, args := s.search(q.Q)
			_, resp, err := timedCall(c, i+2, tool, args)
			var paths []string
			if err == nil {
				paths, err = s.paths(resp)
			}
			if err != nil {
				c.close()
				return fmt.Errorf("%s %q: %w", s.name, q.Q, err)
			}
			tally.Add(i, q, paths)
		}
		c.close()
		fmt.Fprintln(w)
		tally.Print(w, s.name)
	}
	return nil
}
