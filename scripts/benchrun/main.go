// Command benchrun is scripts/bench's driver: it generates vaults, starts each
// MCP server over stdio as a client would, and times what the client sees.
// scripts/bench builds the binaries and installs the peers, then runs this;
// docs/benchmarks.md explains the method and shows a run.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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
	)
	flag.Parse()
	if *work == "" || *bin == "" || *fake == "" {
		fmt.Fprintln(os.Stderr, "benchrun: -work, -bin and -fake are required (scripts/bench sets them)")
		os.Exit(2)
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
	if *out != "" {
		data, _ := json.MarshalIndent(map[string]any{"files": all, "search": searches}, "", " ")
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

// failed reports a JSON-RPC error or an isError result.
func failed(resp []byte) error {
	var m struct {
		Error  *json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &m); err != nil {
		return err
	}
	if m.Error != nil {
		return fmt.Errorf("error %s", *m.Error)
	}
	if m.Result.IsError {
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		return fmt.Errorf("tool error: %s", text)
	}
	return nil
}

// procStatus reads a kB field of /proc/<pid>/status.
func procStatus(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// conn is a stdio JSON-RPC connection to one server process.
type conn struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  *tail
	started time.Time
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

func dial(s server) (*conn, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	c := &conn{cmd: cmd, stderr: &tail{max: 2000}}
	// Kept, not shown: a server that dies before answering says why here.
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 1<<20)
	c.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *conn) send(line string) error {
	_, err := io.WriteString(c.in, line+"\n")
	return err
}

// call sends a request and returns the response with its id, skipping
// anything else the server writes (notifications, its own requests).
func (c *conn) call(id int, line string) ([]byte, error) {
	if err := c.send(line); err != nil {
		return nil, err
	}
	want := strconv.Itoa(id)
	for {
		resp, err := c.out.ReadBytes('\n')
		if err != nil {
			// Give the process a moment to finish writing why it stopped.
			time.Sleep(100 * time.Millisecond)
			return nil, fmt.Errorf("reading the answer to id %d: %w; its stderr: %q", id, err, c.stderr.String())
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(resp, &m) == nil && m.Method == "" && string(m.ID) == want {
			return resp, nil
		}
	}
}

func (c *conn) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile is the q-quantile of xs by the nearest-rank method.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// report prints one vault's figures as Markdown tables.
func report(w io.Writer, notes int, res []result) {
	fmt.Fprintf(w, "\n### %d notes\n\n", notes)
	fmt.Fprintln(w, "Median / p95 in ms; RSS in MB.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| server | start→initialize | tools/list | ping | read | create | append | idle RSS | peak RSS |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	cell := func(xs []float64) string {
		if len(xs) == 0 {
			return "–"
		}
		return fmt.Sprintf("%s / %s", num(quantile(xs, 0.5)), num(quantile(xs, 0.95)))
	}
	mb := func(v float64) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f", v)
	}
	for _, r := range res {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Server, cell(r.Samples["start"]), cell(r.Samples["tools/list"]),
			cell(r.Samples["ping"]), cell(r.Samples["read"]), cell(r.Samples["create"]), cell(r.Samples["append"]), mb(r.IdleMB), mb(r.PeakMB))
	}
	var native, floor *result
	for i := range res {
		switch res[i].Server {
		case "obsidian-mcp (native)":
			native = &res[i]
		case "floor":
			floor = &res[i]
		}
	}
	if native != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "How many times faster obsidian-mcp (native) is, median against median:")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| against | start→initialize | tools/list | ping | read | create | append |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, r := range res {
			if r.Server == "floor" || strings.HasPrefix(r.Server, "obsidian-mcp (") {
				continue
			}
			row := "| " + r.Server
			for _, k := range []string{"start", "tools/list", "ping", "read", "create", "append"} {
				row += " | " + ratio(r.Samples[k], native.Samples[k])
			}
			fmt.Fprintln(w, row+" |")
		}
		if floor != nil {
			fmt.Fprintf(w, "\nstart→initialize against the floor: %s× the floor's time (target: within 4×).\n",
				num(quantile(native.Samples["start"], 0.5)/quantile(floor.Samples["start"], 0.5)))
		}
	}
	for _, r := range res {
		if r.Execs == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s, per operation: CLI commands per call; the call; the same commands run bare right after it; the server's overhead, call minus its bare run (median / p95 of the pairs):\n\n", r.Server)
		fmt.Fprintln(w, "| operation | commands | call | bare exec | overhead |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, k := range []string{"read", "create", "append"} {
			fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s |\n", k, r.Execs[k], cell(r.Samples[k]), cell(r.Samples[k+" bare"]), cell(r.Samples[k+" overhead"]))
		}
	}
}

func ratio(peer, ours []float64) string {
	if len(peer) == 0 || len(ours) == 0 {
		return "–"
	}
	return num(quantile(peer, 0.5)/quantile(ours, 0.5)) + "×"
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
