package vaultgen

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
)

// Labelled is a question written elsewhere about a real vault, with the
// notes that answer it (vault-relative paths, the best first). The
// questions file is JSON: {"queries": [{"q": "...", "want": ["en/Path.md"], "style": "question"}]}.
type Labelled struct {
	Q     string   `json:"q"`
	Want  []string `json:"want"`
	Style string   `json:"style"`
}

// LoadLabelled reads a questions file.
func LoadLabelled(file string) ([]Labelled, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var qs struct{ Queries []Labelled }
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for i, q := range qs.Queries {
		if q.Q == "" || len(q.Want) == 0 {
			return nil, fmt.Errorf("%s: question %d needs a \"q\" and at least one \"want\"", file, i+1)
		}
	}
	return qs.Queries, nil
}

// Halves split the questions in two, alternately: a change to the ranking
// is weighed on the first and judged on the second, which it was not
// fitted to.
var Halves = [2]string{"half A (even: for tuning)", "half B (odd: held out)"}

// Tally scores answers to labelled questions: per style, per half, and
// all. A question hits at k when its first wanted note is among the first
// k paths; its reciprocal rank is the best-placed wanted note's.
type Tally map[string]*Score

// Add counts question i (of the file's order) answered with paths.
func (t Tally) Add(i int, q Labelled, paths []string) {
	first, best := 0, 0
	for r, p := range paths {
		if p == q.Want[0] && first == 0 {
			first = r + 1
		}
		if best == 0 && slices.Contains(q.Want, p) {
			best = r + 1
		}
	}
	for _, k := range []string{q.Style, Halves[i%2], "all"} {
		if t[k] == nil {
			t[k] = &Score{}
		}
		t[k].Add(first, best)
	}
}

// Rows are the tally's rows in print order: halves, styles, all.
func (t Tally) Rows() []string {
	var styles []string
	for k := range t {
		if k != "all" && k != Halves[0] && k != Halves[1] {
			styles = append(styles, k)
		}
	}
	sort.Strings(styles)
	return append(append([]string{Halves[0], Halves[1]}, styles...), "all")
}

// Print writes the tally as a Markdown table, one row per Rows.
func (t Tally) Print(w io.Writer, name string) {
	fmt.Fprintf(w, "| %s | n | hit@1 | hit@3 | MRR@10 |\n|---|---|---|---|---|\n", name)
	for _, k := range t.Rows() {
		if s := t[k]; s != nil {
			fmt.Fprintf(w, "| %s | %d | %d/%d | %d/%d | %.2f |\n", k, s.N, s.Hit1, s.N, s.Hit3, s.N, s.RR/float64(s.N))
		}
	}
}
