package main

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
)

// scaleResult is one server's figures on one vault of the scale bench.
type scaleResult struct {
	Server string `json:"server"`
	Notes  int    `json:"notes"`
	MB     float64
	// Samples: "first search" of a fresh process with no saved index (for
	// the peers, every start), "restart" of one with the index its
	// predecessor saved, "search" warm.
	Samples map[string][]float64 `json:"samples_ms"`
	// Peak is the highest VmHWM of the processes of each kind ("first
	// search", "restart", "search": the warm process); RSSMB the resident
	// memory after the warm searches.
	Peak    map[string]float64 `json:"peak_rss_mb"`
	RSSMB   float64
	IndexMB float64 // the saved index on disk
	FloorMS float64 // reading every note's bytes once, page cache warm
	// LeastMS and LeastCPU are the least a build does (leastBuild): wall
	// milliseconds and CPU-seconds.
	LeastMS, LeastCPU float64
}

// scaleBench measures large vaults (internal/vaultgen's GenerateLarge):
// the first search of a fresh process, first-ever and after a restart
// that finds the saved index, warm search, peak memory and the index's
// size on disk, beside mcpvault; then how each grows with the vault.
func scaleBench(work, bin, peers string, sizes []int, firsts, calls int, w io.Writer) ([]scaleResult, error) {
	queries, err := vaultgen.Queries()
	if err != nil {
		return nil, err
	}
	var out []scaleResult
	for _, n := range sizes {
		dir := filepath.Join(work, fmt.Sprintf("scale-vault-%d", n))
		st, err := generated(dir, n, vaultgen.GenerateLarge)
		if err != nil {
			return nil, err
		}
		floor, err := readAll(dir)
		if err != nil {
			return nil, err
		}
		leastMS, leastCPU, err := leastBuild(dir)
		if err != nil {
			return nil, err
		}
		index := filepath.Join(work, fmt.Sprintf("scale-index-%d", n))
		ours := searcher{name: "obsidian-mcp (native)",
			argv:   []string{filepath.Join(bin, "obsidian-mcp"), "--backend", "native", "--vault-path", dir, "--index-dir", index},
			search: func(q string) (string, any) { return "obsidian_search_notes", map[string]any{"query": q, "limit": 20} }}
		list := []searcher{ours}
		if peers != "" {
			list = append(list, searcher{name: "mcpvault 0.16.0", argv: []string{"node", filepath.Join(peers, "@bitbonsai/mcpvault/dist/server.js"), dir},
				search: func(q string) (string, any) { return "search_notes", map[string]any{"query": q, "limit": 20} }})
		}
		for _, s := range list {
			fmt.Fprintf(os.Stderr, "  %s, %d notes\n", s.name, n)
			r := scaleResult{Server: s.name, Notes: st.Notes, MB: float64(st.Bytes) / (1 << 20), Samples: map[string][]float64{}, FloorMS: floor, LeastMS: leastMS, LeastCPU: leastCPU, Peak: map[string]float64{}}
			kinds := []string{"first search"}
			if s.name == ours.name {
				kinds = append(kinds, "restart")
			}
			for _, kind := range kinds {
				for range firsts {
					if kind == "first search" && s.name == ours.name {
						if err := os.RemoveAll(index); err != nil {
							return nil, err
						}
					}
					d, built, cpu, peak, err := firstSearch(s, queries[0].Query, kind == "first search" && s.name == ours.name, index)
					if err != nil {
						return nil, err
					}
					r.Samples[kind] = append(r.Samples[kind], d)
					if built > 0 {
						r.Samples["built"] = append(r.Samples["built"], built)
						r.Samples["built cpu"] = append(r.Samples["built cpu"], cpu)
					}
					r.Peak[kind] = max(r.Peak[kind], peak)
				}
			}
			if s.name == ours.name {
				r.IndexMB = float64(duSize(index)) / (1 << 20)
			}
			// Warm searches: the peers take seconds each at 100,000 notes.
			warm := calls
			if s.name != ours.name && n >= 50000 {
				warm = min(calls, 10)
			}
			c, err := started(s.name, s.argv)
			if err != nil {
				return nil, err
			}
			for i := range warm + 1 {
				tool, args := s.search(queries[i%len(queries)].Query)
				d, _, err := timedCall(c, i+2, tool, args)
				if err != nil {
					c.close()
					return nil, fmt.Errorf("%s warm search: %w", s.name, err)
				}
				if i > 0 { // the first one loads or builds
					r.Samples["search"] = append(r.Samples["search"], d)
				}
			}
			if s.name == ours.name {
				if err := oneNoteChanges(c, s, dir, queries[0].Query, &r); err != nil {
					c.close()
					return nil, err
				}
				if err := phrases(c, s, dir, &r); err != nil {
					c.close()
					return nil, err
				}
			}
			rss, _ := procStatus(c.cmd.Process.Pid, "VmRSS")
			peak, _ := procStatus(c.cmd.Process.Pid, "VmHWM")
			r.RSSMB, r.Peak["search"] = float64(rss)/1024, float64(peak)/1024
			c.close()
			out = append(out, r)
		}
	}
	scaleReport(w, out)
	return out, nil
}

// oneNoteChanges times the search after one note is added to the vault,
// and after it is deleted, five times each, on the warm process c: what an
// edit-then-search loop pays.
func oneNoteChanges(c *conn, s searcher, dir, q string, r *scaleResult) error {
	p := filepath.Join(dir, "bench-added-note.md")
	defer os.Remove(p)
	id := 1000 // above the warm searches' ids
	for i := range 5 {
		for _, kind := range []string{"after a note added", "after a note deleted"} {
			var err error
			if kind == "after a note added" {
				err = os.WriteFile(p, []byte(fmt.Sprintf("a note added by the benchmark, %d\n", i)), 0o644)
			} else {
				err = os.Remove(p)
			}
			if err != nil {
				return err
			}
			tool, args := s.search(q)
			id++
			d, _, err := timedCall(c, id, tool, args)
			if err != nil {
				return fmt.Errorf("%s %s: %w", s.name, kind, err)
			}
			r.Samples[kind] = append(r.Samples[kind], d)
		}
	}
	return nil
}

// benchPhrases are phrase queries on a GenerateLarge vault: words that
// follow each other in most notes, in many, and in few.
var benchPhrases = []string{"in the", "the note", "de la note"}

// phrases times quoted phrase queries on the warm process c, each beside
// ripgrep looking for the same words as a whole-word fixed string (rg -l
// -i -w -F), interleaved, five of each; without rg, ours alone.
func phrases(c *conn, s searcher, dir string, r *scaleResult) error {
	rg, _ := exec.LookPath("rg")
	id := 2000 // above oneNoteChanges' ids
	for range 5 {
		for _, ph := range benchPhrases {
			id++
			d, _, err := timedCall(c, id, "obsidian_search_notes", map[string]any{"query": `"` + ph + `"`, "limit": 10})
			if err != nil {
				return fmt.Errorf("%s phrase %q: %w", s.name, ph, err)
			}
			r.Samples["phrase "+ph] = append(r.Samples["phrase "+ph], d)
			if rg != "" {
				t0 := time.Now()
				// rg exits 1 when nothing matches: not a failure here.
				_ = exec.Command(rg, "-l", "-i", "-w", "-F", ph, dir).Run()
				r.Samples["rg "+ph] = append(r.Samples["rg "+ph], ms(time.Since(t0)))
			}
		}
	}
	return nil
}

// firstSearch times the first search of a fresh process. When it builds
// the index afresh (saves), the process is kept until the saved index is
// in place, so that its peak memory includes saving it, and built is the
// time from the search to then.
func firstSearch(s searcher, q string, saves bool, index string) (d, built, cpu, peakMB float64, err error) {
	c, err := started(s.name, s.argv)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer c.close()
	tool, args := s.search(q)
	t0 := time.Now()
	d, _, err = timedCall(c, 2, tool, args)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%s first search: %w", s.name, err)
	}
	if saves {
		deadline := time.Now().Add(5 * time.Minute)
		for duSize(index) == 0 || hasTemp(index) {
			if time.Now().After(deadline) {
				return 0, 0, 0, 0, fmt.Errorf("%s saved no index in %s within 5 minutes", s.name, index)
			}
			time.Sleep(20 * time.Millisecond)
		}
		built = ms(time.Since(t0))
		// The whole process's so far: its start, the build and the save.
		if cpu, err = procCPU(c.cmd.Process.Pid); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	peak, _ := procStatus(c.cmd.Process.Pid, "VmHWM")
	return d, built, cpu, float64(peak) / 1024, nil
}

// generated makes the vault once; a stamp file remembers it.
func generated(dir string, n int, gen func(string, int, uint64) (vaultgen.Stats, error)) (vaultgen.Stats, error) {
	stamp := filepath.Join(dir, ".obsidian", "vaultgen-large")
	var st vaultgen.Stats
	if data, err := os.ReadFile(stamp); err == nil {
		if _, err := fmt.Sscan(string(data), &st.Notes, &st.Bytes); err == nil && st.Notes > 0 {
			return st, nil
		}
	}
	t0 := time.Now()
	st, err := gen(dir, n, 1)
	if err != nil {
		return st, err
	}
	fmt.Fprintf(os.Stderr, "scale vault: %d notes, %.1f MB in %s (%s)\n", st.Notes, float64(st.Bytes)/(1<<20), dir, time.Since(t0).Round(time.Millisecond))
	return st, os.WriteFile(stamp, fmt.Appendf(nil, "%d %d", st.Notes, st.Bytes), 0o644)
}

// readAll is the floor: listing the vault and reading every note's bytes
// once, one file after another, page cache warm (the first of four passes
// warms it), in milliseconds: the best of the four.
func readAll(dir string) (float64, error) {
	best := math.Inf(1)
	for range 4 {
		t0 := time.Now()
		var notes []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				notes = append(notes, p)
			}
			return err
		})
		if err != nil {
			return 0, err
		}
		for _, p := range notes {
			if _, err := os.ReadFile(p); err != nil {
				return 0, err
			}
		}
		best = min(best, ms(time.Since(t0)))
	}
	return best, nil
}

func duSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func hasTemp(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*", "*.tmp"))
	return len(m) > 0
}

func scaleReport(w io.Writer, res []scaleResult) {
	if len(res) == 0 {
		return
	}
	fmt.Fprintln(w, "\n### Large vaults")
	fmt.Fprintln(w, "\n| notes (MB) | server | first search, first-ever, p50 | index built and saved, p50 | first search after a restart, p50 | read every note once | warm search p50 | p95 | peak RSS: first-ever / restart / warm | RSS after | index on disk |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	peak := func(r scaleResult, kind string) string {
		if v, ok := r.Peak[kind]; ok {
			return fmt.Sprintf("%.0f", v)
		}
		return "—"
	}
	cell := func(r scaleResult, k string, q float64) string { return msCell(r.Samples[k], q) }
	for _, r := range res {
		idx := "—"
		if r.IndexMB > 0 {
			idx = fmt.Sprintf("%.1f MB", r.IndexMB)
		}
		fmt.Fprintf(w, "| %d (%.0f) | %s | %s | %s | %s | %s ms | %s | %s | %s / %s / %s MB | %.0f MB | %s |\n", r.Notes, r.MB, r.Server,
			cell(r, "first search", 0.5), cell(r, "built", 0.5), cell(r, "restart", 0.5), num(r.FloorMS), cell(r, "search", 0.5), cell(r, "search", 0.95),
			peak(r, "first search"), peak(r, "restart"), peak(r, "search"), r.RSSMB, idx)
	}
	fmt.Fprintln(w, "\n| notes | read every note once | the least a build does (leastBuild): wall / CPU | index built and saved, p50 / the process's CPU then, p50 | built / read | least / read |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range res {
		if b := r.Samples["built"]; len(b) > 0 && r.FloorMS > 0 {
			built := quantile(b, 0.5)
			fmt.Fprintf(w, "| %d | %s ms | %s ms / %.1f s | %s / %.1f s | %.1f× | %.1f× |\n", r.Notes, num(r.FloorMS), num(r.LeastMS), r.LeastCPU,
				cell(r, "built", 0.5), quantile(r.Samples["built cpu"], 0.5), built/r.FloorMS, r.LeastMS/r.FloorMS)
		}
	}
	fmt.Fprintln(w, "\n| notes | server | next search after a note added, p50 | after it is deleted, p50 |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range res {
		if len(r.Samples["after a note added"]) > 0 {
			fmt.Fprintf(w, "| %d | %s | %s | %s |\n", r.Notes, r.Server, cell(r, "after a note added", 0.5), cell(r, "after a note deleted", 0.5))
		}
	}
	fmt.Fprintln(w, "\n| notes | phrase | ours, p50 | ripgrep -l -i -w -F, p50 |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range res {
		for _, ph := range benchPhrases {
			if len(r.Samples["phrase "+ph]) > 0 {
				fmt.Fprintf(w, "| %d | %q | %s | %s |\n", r.Notes, ph, cell(r, "phrase "+ph, 0.5), cell(r, "rg "+ph, 0.5))
			}
		}
	}
	// Growth: the exponent k in cost ∝ notes^k, from the smallest vault
	// to the largest, per server.
	servers := []string{}
	for _, r := range res {
		if !slices.Contains(servers, r.Server) {
			servers = append(servers, r.Server)
		}
	}
	fmt.Fprintln(w, "\nGrowth exponent k (cost ∝ notes^k) from the smallest vault to the largest:")
	fmt.Fprintln(w, "\n| server | first-ever | after a restart | warm p50 | peak RSS (the highest) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, s := range servers {
		var rs []scaleResult
		for _, r := range res {
			if r.Server == s {
				rs = append(rs, r)
			}
		}
		if len(rs) < 2 {
			continue
		}
		a, b := rs[0], rs[len(rs)-1]
		k := func(x, y float64) string {
			if x <= 0 || y <= 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f", math.Log(y/x)/math.Log(float64(b.Notes)/float64(a.Notes)))
		}
		q := func(r scaleResult, kind string) float64 {
			if len(r.Samples[kind]) == 0 {
				return 0
			}
			return quantile(r.Samples[kind], 0.5)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", s, k(q(a, "first search"), q(b, "first search")), k(q(a, "restart"), q(b, "restart")),
			k(q(a, "search"), q(b, "search")), k(highest(a), highest(b)))
	}
}

func highest(r scaleResult) float64 {
	h := 0.0
	for _, v := range r.Peak {
		h = max(h, v)
	}
	return h
}
