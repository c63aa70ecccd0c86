// Command httpload measures obsidian-mcp's faces under load and prints the
// figures: C clients each make N reads (obsidian_read_note of a random
// note) on a generated vault, through each face in turn: serve's MCP
// Streamable HTTP, one stdio connection with C calls in flight, and the
// gateway's vault and command namespaces over Streamable HTTP and HTTP+SSE.
// It reports errors, throughput and latency percentiles for each. A
// benchmark, not a test: docs/benchmarks.md records runs.
//
//	go run ./scripts/httpload -notes 10000 -clients 100 -reads 100
//	go run ./scripts/httpload -faces gateway -clients 10 -reads 500
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
)

func main() {
	notes := flag.Int("notes", 10000, "notes in the generated vault")
	clients := flag.Int("clients", 100, "concurrent clients")
	reads := flag.Int("reads", 100, "reads per client")
	dir := flag.String("dir", "bench-out", "where the vault is generated (reused when present)")
	faces := flag.String("faces", "serve,stdio", "what to measure, in this order: "+strings.Join(faceNames, ", ")+
		`; "gateway" stands for stdio and the four gateway faces`)
	flag.Parse()
	list, err := parseFaces(*faces)
	if err == nil {
		err = run(*notes, *clients, *reads, *dir, list)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpload:", err)
		os.Exit(1)
	}
}

// The faces: serve is obsidian-mcp serve's Streamable HTTP, POSTs with no
// session; stdio one connection with every client's call in flight; the
// gateway's (internal/gateway) are a vault namespace served in process and
// a command namespace running this program as its subprocess, each through
// Streamable HTTP and through HTTP+SSE, one session per client.
var faceNames = []string{"serve", "stdio", "gateway-vault", "gateway-vault-sse", "gateway-command", "gateway-command-sse"}

func parseFaces(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "gateway":
			out = append(out, "stdio", "gateway-vault", "gateway-vault-sse", "gateway-command", "gateway-command-sse")
		case slices.Contains(faceNames, f):
			out = append(out, f)
		default:
			return nil, fmt.Errorf("-faces: no face %q; the faces are %s, or gateway", f, strings.Join(faceNames, ", "))
		}
	}
	return out, nil
}

func run(notes, clients, reads int, dir string, faces []string) error {
	tmp, err := os.MkdirTemp("", "httpload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "obsidian-mcp")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=load", "-o", bin, "./cmd/obsidian-mcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	vault, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("load-vault-%d", notes)))
	if err != nil {
		return err
	}
	if _, err := os.Stat(vault); err != nil {
		fmt.Fprintf(os.Stderr, "generating %d notes in %s\n", notes, vault)
		if _, err := vaultgen.Generate(vault, notes, 1); err != nil {
			return err
		}
	}
	paths, err := notePaths(vault)
	if err != nil {
		return err
	}
	fmt.Printf("%d notes; %d clients x %d reads of a random note (obsidian_read_note)\n\n", len(paths), clients, reads)
	fmt.Println("face                    calls  errors   calls/s    p50 ms    p90 ms    p99 ms    max ms")
	var gw *gatewayRun
	defer func() {
		if gw != nil {
			gw.stop()
		}
	}()
	for _, face := range faces {
		var res result
		var err error
		switch face {
		case "serve":
			res, err = overHTTP(bin, vault, paths, clients, reads)
		case "stdio":
			res, err = overStdio(bin, vault, paths, clients, reads)
		default:
			if gw == nil {
				if gw, err = startGateway(bin, vault, tmp, clients); err != nil {
					return err
				}
			}
			ns, sse := strings.TrimPrefix(face, "gateway-"), false
			if ns, sse = strings.CutSuffix(ns, "-sse"); sse {
				res, err = gw.overSSE(ns, paths, clients, reads)
			} else {
				res, err = gw.overStreamable(ns, paths, clients, reads)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", face, err)
		}
		res.print(face)
	}
	return nil
}

func notePaths(vault string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(vault, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	return paths, err
}

type result struct {
	latencies []time.Duration
	errors    int
	elapsed   time.Duration
}

func (r result) print(name string) {
	l := slices.Clone(r.latencies)
	slices.Sort(l)
	pct := func(p float64) float64 {
		if len(l) == 0 {
			return 0
		}
		return float64(l[min(len(l)-1, int(p*float64(len(l))))].Microseconds()) / 1000
	}
	fmt.Printf("%-20s %8d %7d %9.0f %9.2f %9.2f %9.2f %9.2f\n", name, len(l), r.errors,
		float64(len(l))/r.elapsed.Seconds(), pct(0.50), pct(0.90), pct(0.99), pct(1))
}

func readCall(id int, path string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "obsidian_read_note", "arguments": map[string]any{"path": path}}})
	return b
}

// checkRead fails unless answer is a successful tools/call result.
func checkRead(answer []byte) error {
	if !bytes.Contains(answer, []byte(`"result"`)) || bytes.Contains(answer, []byte(`"isError":true`)) {
		return fmt.Errorf("%.200s", answer)
	}
	return nil
}

var servingURL = regexp.MustCompile(`url=(http://\S+/mcp)`)

func overHTTP(bin, vault string, paths []string, clients, reads int) (result, error) {
	// Logs as shipped (info: one access line per request), drained.
	cmd := exec.Command(bin, "serve", "--backend", "native", "--vault-path", vault, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if m := servingURL.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	if url == "" {
		return result{}, fmt.Errorf("serve did not start")
	}
	// Warm the index and the connections' first use out of the figures.
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	client := &http.Client{Transport: transport, Timeout: time.Minute}
	do := func(body []byte) error {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d: %.200s", resp.StatusCode, data)
		}
		return checkRead(data)
	}
	if err := do(readCall(0, paths[0])); err != nil {
		return result{}, err
	}
	return measure(clients, reads, paths, "HTTP", func(_, id int, p string) error { return do(readCall(id, p)) }), nil
}

// measure runs clients goroutines of reads calls each, on random notes,
// and gathers their latencies and errors. call is told which client makes
// it, so faces with a session per client use that client's.
func measure(clients, reads int, paths []string, name string, call func(client, id int, path string) error) result {
	var mu sync.Mutex
	var res result
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 7))
			for i := range reads {
				t0 := time.Now()
				err := call(c, c*reads+i+1, paths[r.IntN(len(paths))])
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					if res.errors == 0 {
						fmt.Fprintf(os.Stderr, "first %s error: %v\n", name, err)
					}
					res.errors++
				} else {
					res.latencies = append(res.latencies, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// overStdio makes the same reads over one stdio connection, with as many
// calls in flight as there are clients.
func overStdio(bin, vault string, paths []string, clients, reads int) (result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Logs as shipped (info: one line per tool call), to nowhere.
	cmd := exec.CommandContext(ctx, bin, "--backend", "native", "--vault-path", vault)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return result{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	var wmu sync.Mutex
	send := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	var pmu sync.Mutex
	pending := map[int]chan []byte{}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(line, &m) != nil || m.ID == nil {
				continue
			}
			pmu.Lock()
			ch := pending[*m.ID]
			delete(pending, *m.ID)
			pmu.Unlock()
			if ch != nil {
				ch <- line
			}
		}
	}()
	var idmu sync.Mutex
	next := 1
	call := func(body func(id int) []byte) ([]byte, error) {
		idmu.Lock()
		id := next
		next++
		idmu.Unlock()
		ch := make(chan []byte, 1)
		pmu.Lock()
		pending[id] = ch
		pmu.Unlock()
		if err := send(body(id)); err != nil {
			return nil, err
		}
		select {
		case line := <-ch:
			return line, nil
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("no answer to %d within a minute", id)
		}
	}
	init := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"httpload","version":"1"}}}`, id))
	}
	if _, err := call(init); err != nil {
		return result{}, err
	}
	if err := send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return result{}, err
	}
	if _, err := call(func(id int) []byte { return readCall(id, paths[0]) }); err != nil {
		return result{}, err
	}
	return measure(clients, reads, paths, "stdio", func(_, _ int, p string) error {
		line, err := call(func(id int) []byte { return readCall(id, p) })
		if err != nil {
			return err
		}
		return checkRead(line)
	}), nil
}
