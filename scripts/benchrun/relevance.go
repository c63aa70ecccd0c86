package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

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
		err = askAll(c, s, qs, func(i int, paths []string, _ []byte) { tally.Add(i, qs[i], paths) })
		c.close()
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
		tally.Print(w, s.name)
	}
	return answerSizes(dir, file, bin, w)
}

// answerSizes weighs the size of our answer against what it finds: for
// each limit, the share of questions whose note is among the results, and
// the bytes of text a model reads (the answer's text block), mean and
// largest. The default limit is chosen from it (docs/benchmarks.md).
func answerSizes(dir, file, bin string, w io.Writer) error {
	qs, err := vaultgen.LoadLabelled(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n| results asked | questions whose note is among them | answer text, mean bytes | largest |\n|---|---|---|---|\n")
	for _, limit := range []int{1, 3, 5, 10, 20} {
		s := searchers(dir, bin, "", limit, nil)[0]
		c, err := started(s.name, s.argv)
		if err != nil {
			return err
		}
		found, total, largest := 0, 0, 0
		err = askAll(c, s, qs, func(i int, paths []string, resp []byte) {
			if slices.ContainsFunc(paths, func(p string) bool { return slices.Contains(qs[i].Want, p) }) {
				found++
			}
			n := len(textOf(resp))
			total += n
			largest = max(largest, n)
		})
		c.close()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %d | %d/%d | %d | %d |\n", limit, found, len(qs), total/len(qs), largest)
	}
	return nil
}

// askAll asks s, on c, each question in turn, and hands each answer's
// notes (best first) and raw answer to got.
func askAll(c *conn, s searcher, qs []vaultgen.Labelled, got func(i int, paths []string, resp []byte)) error {
	for i, q := range qs {
		tool, args := s.search(q.Q)
		_, resp, err := timedCall(c, i+2, tool, args)
		var paths []string
		if err == nil {
			paths, err = s.paths(resp)
		}
		if err != nil {
			return fmt.Errorf("%s %q: %w", s.name, q.Q, err)
		}
		got(i, paths, resp)
	}
	return nil
}

// textOf is the text of a tools/call answer's content blocks.
func textOf(resp []byte) string {
	var m struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	_ = json.Unmarshal(resp, &m)
	var b strings.Builder
	for _, c := range m.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
