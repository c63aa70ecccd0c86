// Command benchrun is scripts/bench's driver: it generates vaults, starts each
// MCP server over stdio as a client would, and times what the client sees.
// scripts/bench builds the binaries and installs the peers, then runs this;
// docs/benchmarks.md explains the method and shows a run.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/benchfigures"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

func main() {
	var (
		work   = flag.String("work", "", "folder for the generated vaults (outside the system temp folder: obsidian-mcp 1.0.6 refuses vaults there)")
		bin    = flag.String("bin", "", "folder holding obsidian-mcp and floor")
		fake   = flag.String("fake", "", "the fake CLI, built as …/obsidian")
		peers  = flag.String("peers", "", "node_modules folder of the pinned peers; empty skips them")
		sizes  = flag.String("sizes", "5000,10000", "vault sizes, in notes")
		starts = flag.Int("starts", 40, "process starts timed per server")
		calls  = flag.Int("calls", 100, "calls timed per operation")
		out    = flag.String("json", "", "also write every sample here")
		search = flag.Int("search", 0, "also compare search on a generated vault of this many notes (internal/vaultgen); 0 skips")
		scalls = flag.Int("search-calls", 100, "warm searches (and tag, backlink, listing calls) timed per server")
		first  = flag.Int("search-firsts", 5, "fresh processes timed on their first search")
		scale  = flag.String("scale", "", "also measure large vaults of these sizes, comma-separated (internal/vaultgen GenerateLarge): first search first-ever and after a restart, warm search, memory, index size")
		sfirst = flag.Int("scale-firsts", 3, "fresh processes timed per kind of first search, per server and size")
		lcalls = flag.Int("scale-calls", 50, "warm searches timed per server and size (the peers: at most 10 from 50,000 notes)")
		relv   = flag.String("relevance", "", "also score search on this vault (a copy of one nobody here wrote, such as Obsidian's Help vault) with -questions, ours beside mcpvault")
		relq   = flag.String("questions", "", "the labelled questions for -relevance (JSON; internal/vaultgen.Labelled)")
		ctx    = flag.Int("context", 0, "also measure what a model pays for (tools/list, a 10-call session) on a generated vault of this many notes; 0 skips")
		figs   = flag.String("figures", "", "also write the README's opening claims here (docs/figures.json), from the side-by-side and -search runs")
		from   = flag.String("from", "", "with -figures: take the results of an earlier run (its -json file) instead of running")
	)
	flag.Parse()
	if *from != "" {
		if err := figuresFrom(*from, *figs); err != nil {
			fatal(err)
		}
		return
	}
	if *work == "" || *bin == "" || *fake == "" {
		fmt.Fprintln(os.Stderr, "benchrun: -work, -bin and -fake are required (scripts/bench sets them)")
		os.Exit(2)
	}
	if (*relv == "") != (*relq == "") {
		fmt.Fprintln(os.Stderr, "benchrun: -relevance and -questions go together: the vault and the questions about it")
		os.Exit(2)
	}
	if *relv != "" {
		if err := relevanceBench(*relv, *relq, *bin, *peers, os.Stdout); err != nil {
			fatal(err)
		}
	}
	var all []result
	for _, s := range strings.Split(*sizes, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 {
			fmt.Fprintf(os.Stderr, "benchrun: -sizes: %q is not a vault size of at least 100 notes\n", s)
			os.Exit(2)
		}
		dir := filepath.Join(*work, fmt.Sprintf("vault-%d", n))
		t0 := time.Now()
		if err := generate(dir, n); err != nil {
			fatal(err)
		}
		fmt.Fprintf(os.Stderr, "vault of %d notes in %s (%s)\n", n, dir, time.Since(t0).Round(time.Millisecond))
		b := &bench{vault: dir, notes: n, starts: *starts, calls: *calls}
		res, err := b.run(servers(dir, n, *bin, *fake, *peers))
		if err != nil {
			fatal(err)
		}
		all = append(all, res...)
		report(os.Stdout, n, res)
	}
	var searches []searchResult
	if *search > 0 {
		var err error
		if searches, err = searchBench(*work, *bin, *peers, *search, *scalls, *first, os.Stdout); err != nil {
			fatal(err)
		}
	}
	var scales []scaleResult
	if *scale != "" {
		var ns []int
		for _, s := range strings.Split(*scale, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 100 {
				fmt.Fprintf(os.Stderr, "benchrun: -scale: %q is not a vault size of at least 100 notes\n", s)
				os.Exit(2)
			}
			ns = append(ns, n)
		}
		var err error
		if scales, err = scaleBench(*work, *bin, *peers, ns, *sfirst, *lcalls, os.Stdout); err != nil {
			fatal(err)
		}
	}
	var contexts []contextResult
	if *ctx > 0 {
		var err error
		if contexts, err = contextBench(*work, *bin, *peers, *ctx, os.Stdout); err != nil {
			fatal(err)
		}
	}
	if *figs != "" {
		if err := benchfigures.Write(*figs, figures(all, searches)); err != nil {
			fatal(err)
		}
	}
	if *out != "" {
		data, _ := json.MarshalIndent(map[string]any{"files": all, "search": searches, "scale": scales, "context": contexts}, "", " ")
		if err := os.WriteFile(*out, data, 0o644); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}

// generate writes a vault of n notes in 50 folders, each with frontmatter,
// paragraphs and wikilinks to other notes, unless it is already there. The
// same seed gives the same vault, so runs compare.
func generate(dir string, n int) error {
	stamp := filepath.Join(dir, ".obsidian", "bench-vault")
	if data, err := os.ReadFile(stamp); err == nil && string(data) == strconv.Itoa(n) {
		// Reuse the vault; drop what the last run wrote.
		made, _ := filepath.Glob(filepath.Join(dir, "bench-fs-*.md"))
		for _, p := range append(made, filepath.Join(dir, "bench")) {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		return err
	}
	// obsidian-mcp 1.0.6 only accepts a folder with .obsidian/app.json.
	if err := os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte("{}\n"), 0o644); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	words := strings.Fields("vault note link graph idea draft plan review meeting project research garden daily weekly archive " +
		"canvas property tag alias heading block embed quote list task reference summary outline question answer")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Note %05d\ntags: [%s, %s]\ncreated: 2026-%02d-%02d\n---\n\n# Note %05d\n\n",
			i, words[r.IntN(len(words))], words[r.IntN(len(words))], 1+i%12, 1+i%28, i)
		for p := range 3 + r.IntN(4) {
			for w := range 40 + r.IntN(60) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			fmt.Fprintf(&b, " See [[Note %05d]]", r.IntN(n))
			if p%2 == 1 {
				fmt.Fprintf(&b, " and [[%s|the %s]]", notePath(r.IntN(n), false), words[r.IntN(len(words))])
			}
			b.WriteString(".\n\n")
		}
		p := filepath.Join(dir, filepath.FromSlash(notePath(i, true)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(stamp, []byte(strconv.Itoa(n)), 0o644)
}

// notePath is note i's vault-relative path, with or without .md.
func notePath(i int, ext bool) string {
	p := fmt.Sprintf("Folder %02d/Note %05d", i%50, i)
	if ext {
		p += ".md"
	}
	return p
}

// server is one MCP server under test and how to call its tools.
type server struct {
	name string
	argv []string
	env  []string
	// read, create and append return the tool and arguments of call i;
	// a nil func means the server has no such tool.
	read, create, append func(i int) (string, any)
	// fakeLog, when set, is the fake CLI's call log: each operation's
	// commands are counted and replayed bare for the floor.
	fakeLog string
}

func servers(vault string, notes int, bin, fake, peers string) []server {
	// sample spreads reads over the vault's folders and notes.
	sample := func(i int) int { return (i * 97) % notes }
	ours := filepath.Join(bin, "obsidian-mcp")
	readOurs := func(i int) (string, any) {
		return "obsidian_read_note", map[string]any{"path": notePath(sample(i), true)}
	}
	createOurs := func(who string) func(int) (string, any) {
		return func(i int) (string, any) {
			return "obsidian_create_note", map[string]any{"path": fmt.Sprintf("bench/%s/new %03d.md", who, i), "content": newContent}
		}
	}
	appendOurs := func(who string) func(int) (string, any) {
		return func(i int) (string, any) {
			return "obsidian_append_to_note", map[string]any{"path": fmt.Sprintf("bench/%s/new 000.md", who), "content": fmt.Sprintf("line %d", i)}
		}
	}
	list := []server{
		{name: "floor", argv: []string{filepath.Join(bin, "floor")}},
		{
			name: "obsidian-mcp (native)", argv: []string{ours, "--backend", "native", "--vault-path", vault},
			read: readOurs, create: createOurs("native"), append: appendOurs("native"),
		},
		{
			// No --vault-path: every operation goes through the CLI.
			name: "obsidian-mcp (cli, fake)", argv: []string{ours, "--backend", "cli", "--obsidian-bin", fake},
			read: readOurs, create: createOurs("cli"), append: appendOurs("cli"),
			fakeLog: filepath.Join(filepath.Dir(fake), "calls.jsonl"),
		},
	}
	if peers == "" {
		return list
	}
	node := func(script string) []string { return []string{"node", filepath.Join(peers, script), vault} }
	return append(list,
		server{
			name: "server-filesystem 2026.8.31", argv: node("@modelcontextprotocol/server-filesystem/dist/index.js"),
			read: func(i int) (string, any) {
				return "read_text_file", map[string]any{"path": filepath.Join(vault, notePath(sample(i), true))}
			},
			create: func(i int) (string, any) {
				// write_file cannot make folders, so new notes go to the root.
				return "write_file", map[string]any{"path": filepath.Join(vault, fmt.Sprintf("bench-fs-%03d.md", i)), "content": newContent}
			},
			// No append tool: edit_file replaces text, which is not the same work.
		},
		server{
			name: "mcpvault 0.16.0", argv: node("@bitbonsai/mcpvault/dist/server.js"),
			read: func(i int) (string, any) {
				return "read_note", map[string]any{"path": notePath(sample(i), true)}
			},
			create: func(i int) (string, any) {
				return "write_note", map[string]any{"path": fmt.Sprintf("bench/mcpvault/new %03d.md", i), "content": newContent}
			},
			append: func(i int) (string, any) {
				return "write_note", map[string]any{"path": "bench/mcpvault/new 000.md", "content": fmt.Sprintf("line %d", i), "mode": "append"}
			},
		},
		server{
			name: "obsidian-mcp 1.0.6", argv: node("obsidian-mcp/build/main.js"),
			read: func(i int) (string, any) {
				k := sample(i)
				return "read-note", map[string]any{"vault": filepath.Base(vault), "folder": fmt.Sprintf("Folder %02d", k%50), "filename": fmt.Sprintf("Note %05d.md", k)}
			},
			create: func(i int) (string, any) {
				return "create-note", map[string]any{"vault": filepath.Base(vault), "folder": "bench/obsidian-mcp-1", "filename": fmt.Sprintf("new %03d.md", i), "content": newContent}
			},
			append: func(i int) (string, any) {
				return "edit-note", map[string]any{"vault": filepath.Base(vault), "folder": "bench/obsidian-mcp-1", "filename": "new 000.md", "operation": "append", "content": fmt.Sprintf("line %d", i)}
			},
		},
	)
}

const newContent = "---\ntags: [bench]\n---\n# New\n\nWritten by the benchmark. Links to [[Note 00001]].\n"

// result is one server's figures on one vault.
type result struct {
	Server string `json:"server"`
	Notes  int    `json:"notes"`
	// Samples per measure, in milliseconds: start (process start to
	// initialize answered), tools/list, ping, read, create, append, and for the
	// fake CLI the bare exec of each operation's commands.
	Samples map[string][]float64 `json:"samples_ms"`
	// Execs is how many CLI commands each operation ran (fake CLI only).
	Execs map[string]float64 `json:"execs,omitempty"`
	// IdleRSS is the resident set after initialize and tools/list, before
	// any tool call; PeakRSS is the high-water mark over the whole session.
	IdleRSS, PeakRSS int64   `json:"-"`
	IdleMB           float64 `json:"idle_rss_mb"`
	PeakMB           float64 `json:"peak_rss_mb"`
}

type bench struct {
	vault         string
	notes         int
	starts, calls int
}

func (b *bench) run(list []server) ([]result, error) {
	out := make([]result, len(list))
	for i, s := range list {
		out[i] = result{Server: s.name, Notes: b.notes, Samples: map[string][]float64{}, Execs: map[string]float64{}}
		if s.fakeLog != "" {
			if err := writeScenario(s.fakeLog, b.vault); err != nil {
				return nil, err
			}
		}
	}
	// Starts take turns, one of each server per round in a shuffled order,
	// so that a slow spell of a shared machine, or the kernel still tearing
	// down the Node process before, falls on every server alike.
	fmt.Fprintf(os.Stderr, "  %d starts of each server, in turns\n", b.starts)
	order := rand.New(rand.NewPCG(1, 2))
	for range b.starts {
		for _, i := range order.Perm(len(list)) {
			s := list[i]
			time.Sleep(100 * time.Millisecond)
			d, err := startOnce(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			out[i].Samples["start"] = append(out[i].Samples["start"], ms(d))
		}
	}
	for i, s := range list {
		r := &out[i]
		if s.read != nil {
			fmt.Fprintf(os.Stderr, "  %s\n", s.name)
			if err := b.session(s, r); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
		}
		if len(r.Execs) == 0 {
			r.Execs = nil
		}
	}
	return out, nil
}

// writeScenario points the fake CLI at the vault; its log is beside it.
func writeScenario(log, vault string) error {
	sc, _ := json.Marshal(map[string]string{"vault": vault, "log": log})
	_ = os.Remove(log)
	return os.WriteFile(filepath.Join(filepath.Dir(log), "scenario.json"), sc, 0o644)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"benchrun","version":"1"}}}`

// startOnce times one process from exec to its initialize answer.
func startOnce(s server) (time.Duration, error) {
	c, err := dial(s)
	if err != nil {
		return 0, err
	}
	defer c.close()
	if _, err := c.call(1, initialize); err != nil {
		return 0, err
	}
	return time.Since(c.started), nil
}

// session runs one process through tools/list and every operation.
func (b *bench) session(s server, r *result) error {
	c, err := dial(s)
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := c.call(1, initialize); err != nil {
		return err
	}
	if err := c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return err
	}
	id := 1
	next := func() int { id++; return id }
	// tools/list, then ping: the protocol round trip alone, the floor
	// under every call.
	for _, method := range []string{"tools/list", "ping"} {
		for range b.calls {
			n := next()
			t0 := time.Now()
			if _, err := c.call(n, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, n, method)); err != nil {
				return err
			}
			r.Samples[method] = append(r.Samples[method], ms(time.Since(t0)))
		}
	}
	time.Sleep(200 * time.Millisecond) // let a garbage-collected runtime settle
	r.IdleRSS, _ = procStatus(c.cmd.Process.Pid, "VmRSS")
	ops := []struct {
		name string
		call func(int) (string, any)
	}{{"read", s.read}, {"create", s.create}, {"append", s.append}}
	// One untimed pass over the notes read later, so that no server pays
	// for cold page cache or first-run code paths the others do not.
	for i := range b.calls {
		tool, args := s.read(i)
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": next(), "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		if _, err := c.call(id, string(req)); err != nil {
			return err
		}
	}
	for _, op := range ops {
		if op.call == nil {
			continue
		}
		seen, execs := 0, 0
		if s.fakeLog != "" {
			calls, err := obsidiantest.ReadCalls(s.fakeLog)
			if err != nil {
				return err
			}
			seen = len(calls)
		}
		for i := range b.calls {
			tool, args := op.call(i)
			req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": next(), "method": "tools/call",
				"params": map[string]any{"name": tool, "arguments": args}})
			t0 := time.Now()
			resp, err := c.call(id, string(req))
			if err != nil {
				return err
			}
			d := time.Since(t0)
			if err := failed(resp); err != nil {
				return fmt.Errorf("%s %s: %w", op.name, tool, err)
			}
			r.Samples[op.name] = append(r.Samples[op.name], ms(d))
			if s.fakeLog == "" {
				continue
			}
			// The floor, paired with the call it belongs to: the commands
			// this call ran, run again bare at once, output captured.
			calls, err := obsidiantest.ReadCalls(s.fakeLog)
			if err != nil {
				return err
			}
			cmds := calls[seen:]
			execs += len(cmds)
			t0 = time.Now()
			for _, argv := range cmds {
				if _, err := exec.Command(filepath.Join(filepath.Dir(s.fakeLog), "obsidian"), argv...).Output(); err != nil {
					return fmt.Errorf("bare exec of %v: %w", argv, err)
				}
			}
			bare := time.Since(t0)
			seen = len(calls) + len(cmds) // the fake logs the bare runs too
			r.Samples[op.name+" bare"] = append(r.Samples[op.name+" bare"], ms(bare))
			r.Samples[op.name+" overhead"] = append(r.Samples[op.name+" overhead"], ms(d-bare))
		}
		if s.fakeLog != "" {
			r.Execs[op.name] = float64(execs) / float64(b.calls)
		}
	}
	r.PeakRSS, _ = procStatus(c.cmd.Process.Pid, "VmHWM")
	r.IdleMB, r.PeakMB = float64(r.IdleRSS)/1024, float64(r.PeakRSS)/1024
	return nil
}
