package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
)

// searcher is a server whose search is compared, and how to ask it.
type searcher struct {
	name string
	argv []string
	// search is the tool and arguments for a query; paths reads the notes
	// a result names, best first (nil: relevance is not measured).
	search func(q string) (string, any)
	paths  func(resp []byte) ([]string, error)
	// extra are our other read-side operations, timed the same way.
	extra map[string]func(i int) (string, any)
}

// searchResult is one server's search figures.
type searchResult struct {
	Server  string               `json:"server"`
	Notes   int                  `json:"notes"`
	MB      float64              `json:"vault_mb"`
	Samples map[string][]float64 `json:"samples_ms"`
	Hits    int                  `json:"relevance_hits"`
	Queries int                  `json:"relevance_queries"`
	// Rel is the relevance by kind of query (keyword, sentence, all).
	Rel    map[string]*vaultgen.Score `json:"relevance"`
	RSSMB  float64                    `json:"rss_mb"`
	PeakMB float64                    `json:"peak_rss_mb"`
}

// searchBench compares search on a vaultgen vault of n notes: the first
// search of a fresh process (index build included), warm searches over
// the relevance set's queries, our tags, backlinks and listing, resident
// memory, and the relevance hit rate where the answer can be read.
func searchBench(work, bin, peers string, n, calls, firsts int, w io.Writer) ([]searchResult, error) {
	dir := filepath.Join(work, fmt.Sprintf("search-vault-%d", n))
	stamp := filepath.Join(dir, ".obsidian", "vaultgen")
	var st vaultgen.Stats
	if data, err := os.ReadFile(stamp); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	if st.Notes == 0 {
		t0 := time.Now()
		var err error
		if st, err = vaultgen.Generate(dir, n, 1); err != nil {
			return nil, err
		}
		data, _ := json.Marshal(st)
		if err := os.WriteFile(stamp, data, 0o644); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "search vault: %d notes, %.1f MB in %s (%s)\n", st.Notes, float64(st.Bytes)/(1<<20), dir, time.Since(t0).Round(time.Millisecond))
	}
	queries, err := vaultgen.Queries()
	if err != nil {
		return nil, err
	}
	list := searchers(dir, bin, peers, 20, queries)
	var out []searchResult
	for _, s := range list {
		fmt.Fprintf(os.Stderr, "  %s\n", s.name)
		r := searchResult{Server: s.name, Notes: st.Notes, MB: float64(st.Bytes) / (1 << 20), Samples: map[string][]float64{}, Queries: len(queries), Rel: map[string]*vaultgen.Score{}}
		// The first search of fresh processes: whatever a server builds or
		// reads before it can answer is in it.
		for range firsts {
			c, err := started(s.name, s.argv)
			if err != nil {
				return nil, err
			}
			tool, args := s.search(queries[0].Query)
			d, _, err := timedCall(c, 2, tool, args)
			c.close()
			if err != nil {
				return nil, fmt.Errorf("%s first search: %w", s.name, err)
			}
			r.Samples["first search"] = append(r.Samples["first search"], d)
		}
		c, err := started(s.name, s.argv)
		if err != nil {
			return nil, err
		}
		id := 1
		// Warm up (index built, code paths hot), then time.
		tool, args := s.search(queries[0].Query)
		id++
		if _, _, err := timedCall(c, id, tool, args); err != nil {
			c.close()
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		for i := range calls {
			q := queries[i%len(queries)]
			tool, args := s.search(q.Query)
			id++
			d, resp, err := timedCall(c, id, tool, args)
			if err != nil {
				c.close()
				return nil, fmt.Errorf("%s %q: %w", s.name, q.Query, err)
			}
			r.Samples["search"] = append(r.Samples["search"], d)
			if s.paths != nil && i < len(queries) {
				ps, err := s.paths(resp)
				if err != nil {
					c.close()
					return nil, fmt.Errorf("%s %q: reading the answer: %w", s.name, q.Query, err)
				}
				rank := slices.Index(ps, q.Expect) + 1
				if rank >= 1 && rank <= 3 {
					r.Hits++
				}
				for _, k := range []string{q.Kind, "all"} {
					if r.Rel[k] == nil {
						r.Rel[k] = &vaultgen.Score{}
					}
					r.Rel[k].Add(rank, rank)
				}
			}
		}
		for op, call := range s.extra {
			for i := range calls {
				tool, args := call(i)
				id++
				d, _, err := timedCall(c, id, tool, args)
				if err != nil {
					c.close()
					return nil, fmt.Errorf("%s %s: %w", s.name, op, err)
				}
				r.Samples[op] = append(r.Samples[op], d)
			}
		}
		time.Sleep(200 * time.Millisecond)
		rss, _ := procStatus(c.cmd.Process.Pid, "VmRSS")
		peak, _ := procStatus(c.cmd.Process.Pid, "VmHWM")
		r.RSSMB, r.PeakMB = float64(rss)/1024, float64(peak)/1024
		c.close()
		if s.paths == nil {
			r.Hits, r.Queries = 0, 0
		}
		out = append(out, r)
	}
	searchReport(w, out)
	return out, nil
}

func timedCall(c *conn, id int, tool string, args any) (float64, []byte, error) {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	t0 := time.Now()
	resp, err := c.call(id, string(req))
	d := ms(time.Since(t0))
	if err == nil {
		err = failed(resp)
	}
	return d, resp, err
}

func searchReport(w io.Writer, res []searchResult) {
	if len(res) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### Search, %d notes (%.1f MB)\n\n", res[0].Notes, res[0].MB)
	fmt.Fprintln(w, "| server | first search (index build), p50 | search p50 | search p90 | tags p50 | backlinks p50 | list p50 | RSS after | peak RSS | top-3 relevance |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	cell := func(r searchResult, k string, q float64) string { return msCell(r.Samples[k], q) }
	for _, r := range res {
		rel := "—"
		if r.Queries > 0 {
			rel = fmt.Sprintf("%d/%d (%.0f%%)", r.Hits, r.Queries, 100*float64(r.Hits)/float64(r.Queries))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %.0f MB | %.0f MB | %s |\n", r.Server,
			cell(r, "first search", 0.5), cell(r, "search", 0.5), cell(r, "search", 0.9),
			cell(r, "tags", 0.5), cell(r, "backlinks", 0.5), cell(r, "list", 0.5), r.RSSMB, r.PeakMB, rel)
	}
	fmt.Fprintf(w, "\nRelevance on the %d labelled queries of internal/vaultgen/relevance (hit@1 / hit@3 / MRR of the top 20):\n\n", res[0].Queries)
	fmt.Fprintln(w, "| server | keyword queries | questions in sentences | all |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range res {
		if r.Queries == 0 {
			continue
		}
		row := "| " + r.Server
		for _, k := range []string{"keyword", "sentence", "all"} {
			x := r.Rel[k]
			if x == nil || x.N == 0 {
				row += " | —"
				continue
			}
			n := float64(x.N)
			row += fmt.Sprintf(" | %.0f%% / %.0f%% / %.2f (%d)", 100*float64(x.Hit1)/n, 100*float64(x.Hit3)/n, x.RR/n, x.N)
		}
		fmt.Fprintln(w, row+" |")
	}
	ours := res[0].Samples["search"]
	for _, r := range res[1:] {
		if len(ours) > 0 && len(r.Samples["search"]) > 0 {
			fmt.Fprintf(w, "\nSearch p50: obsidian-mcp is %.0f× faster than %s.", quantile(r.Samples["search"], 0.5)/quantile(ours, 0.5), r.Server)
		}
	}
	fmt.Fprintln(w, strings.Repeat("", 0))
}

// searchers are the servers whose search is compared on the vault in dir,
// each asked for limit results: ours, and with peers (their node_modules
// folder) mcpvault and obsidian-mcp 1.0.6. queries feed our extra calls.
func searchers(dir, bin, peers string, limit int, queries []vaultgen.Query) []searcher {
	ours := searcher{
		name: "obsidian-mcp (native)", argv: []string{filepath.Join(bin, "obsidian-mcp"), "--backend", "native", "--vault-path", dir, "--index-dir", "off"},
		search: func(q string) (string, any) {
			return "obsidian_search_notes", map[string]any{"query": q, "limit": limit}
		},
		paths: func(resp []byte) ([]string, error) {
			var m struct {
				Result struct {
					StructuredContent struct {
						Data struct {
							Results []struct{ Path string } `json:"results"`
						} `json:"data"`
					} `json:"structuredContent"`
				} `json:"result"`
			}
			err := json.Unmarshal(resp, &m)
			var ps []string
			for _, r := range m.Result.StructuredContent.Data.Results {
				ps = append(ps, r.Path)
			}
			return ps, err
		},
		extra: map[string]func(int) (string, any){
			"tags": func(int) (string, any) { return "obsidian_list_tags", map[string]any{"limit": 100} },
			"backlinks": func(i int) (string, any) {
				return "obsidian_get_backlinks", map[string]any{"path": queries[i%len(queries)].Expect}
			},
			"list": func(int) (string, any) {
				return "obsidian_list_files", map[string]any{"recursive": true, "sort": "modified", "limit": 50}
			},
		},
	}
	list := []searcher{ours}
	if peers != "" {
		node := func(script string) []string { return []string{"node", filepath.Join(peers, script), dir} }
		list = append(list,
			searcher{
				name: "mcpvault 0.16.0", argv: node("@bitbonsai/mcpvault/dist/server.js"),
				search: func(q string) (string, any) { return "search_notes", map[string]any{"query": q, "limit": limit} },
				paths: func(resp []byte) ([]string, error) {
					var m struct {
						Result struct {
							Content []struct{ Text string } `json:"content"`
						} `json:"result"`
					}
					if err := json.Unmarshal(resp, &m); err != nil || len(m.Result.Content) == 0 {
						return nil, fmt.Errorf("no content in %.200s", resp)
					}
					var rs []struct {
						P string `json:"p"`
					}
					err := json.Unmarshal([]byte(m.Result.Content[0].Text), &rs)
					var ps []string
					for _, r := range rs {
						ps = append(ps, r.P)
					}
					return ps, err
				},
			},
			searcher{
				name: "obsidian-mcp 1.0.6", argv: node("obsidian-mcp/build/main.js"),
				search: func(q string) (string, any) {
					return "search-vault", map[string]any{"vault": filepath.Base(dir), "query": q, "searchType": "content"}
				},
			},
		)
	}
	return list
}
