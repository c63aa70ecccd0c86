package main

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/benchfigures"
)

// widen makes r the range of r and x (r starts as zero, empty).
func widen(r *[2]float64, x float64) {
	if r[0] == 0 && r[1] == 0 {
		*r = [2]float64{x, x}
		return
	}
	r[0], r[1] = min(r[0], x), max(r[1], x)
}

// figures works out the README's claims from a run's results.
func figures(all []result, searches []searchResult) benchfigures.Figures {
	f := benchfigures.Figures{Measured: time.Now().UTC().Format("2006-01-02"), PeersTop3: map[string]int{}}
	ours := map[int]*result{}
	for i, r := range all {
		if r.Server == "obsidian-mcp (native)" {
			ours[r.Notes] = &all[i]
			f.Sizes = append(f.Sizes, r.Notes)
			widen(&f.IdleMB, r.IdleMB)
		}
	}
	p50 := func(xs []float64) float64 { return quantile(xs, 0.5) }
	for _, r := range all {
		o := ours[r.Notes]
		if o == nil || r.Server == "floor" || strings.HasPrefix(r.Server, "obsidian-mcp (") {
			continue
		}
		if !slices.Contains(f.Peers, r.Server) {
			f.Peers = append(f.Peers, r.Server)
		}
		widen(&f.PeersIdleMB, r.IdleMB)
		if a, b := p50(r.Samples["start"]), p50(o.Samples["start"]); a > 0 && b > 0 {
			widen(&f.Initialize, a/b)
		}
		if a, b := p50(r.Samples["read"]), p50(o.Samples["read"]); a > 0 && b > 0 {
			widen(&f.Read, a/b)
		}
	}
	if len(searches) > 0 && searches[0].Server == "obsidian-mcp (native)" {
		o := searches[0]
		f.SearchNotes, f.SearchMS, f.Top3, f.Queries = o.Notes, p50(o.Samples["search"]), o.Hits, o.Queries
		for _, r := range searches[1:] {
			if len(r.Samples["search"]) > 0 {
				widen(&f.Search, p50(r.Samples["search"])/f.SearchMS)
			}
			if len(r.Rel) > 0 {
				// Only a server whose answer names its notes in order
				// is scored.
				f.PeersTop3[r.Server] = r.Hits
			}
		}
	}
	return f
}

// figuresFrom writes to file the figures of the run whose samples are in
// results (benchrun -json).
func figuresFrom(results, file string) error {
	if file == "" {
		return errors.New("-from needs -figures: where to write them")
	}
	data, err := os.ReadFile(results)
	if err != nil {
		return err
	}
	var r struct {
		Files  []result       `json:"files"`
		Search []searchResult `json:"search"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	f := figures(r.Files, r.Search)
	if st, err := os.Stat(results); err == nil {
		f.Measured = st.ModTime().UTC().Format("2006-01-02")
	}
	return benchfigures.Write(file, f)
}
