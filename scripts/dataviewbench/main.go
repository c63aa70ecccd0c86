// Command dataviewbench measures Dataview queries on a generated vault
// with inline fields and tasks (internal/vaultgen), this server's engine
// beside Dataview's own, in one interleaved run: each round asks each
// query of both, warm, one after the other.
//
//	go run ./scripts/dataviewbench -engine ENGINE.cjs [-notes 10000] [-rounds 20]
//	go run ./scripts/dataviewbench -resident 3 [-notes 100000]
//
// The second form measures instead the server's resident memory, with
// the search index alone and with Dataview's pages, in fresh processes.
//
// ENGINE.cjs is a CommonJS bundle of Dataview 0.5.70's engine (see
// engine.mjs); without it only this server is measured. Node 18 or later
// runs it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type peer struct {
	cmd *exec.Cmd
	in  *json.Encoder
	out *bufio.Scanner
}

func startPeer(engine, dir string) (*peer, float64, error) {
	here, err := filepath.Abs(filepath.Join("scripts", "dataviewbench", "engine.mjs"))
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.Command("node", here, engine, dir)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	p := &peer{cmd: cmd, in: json.NewEncoder(w), out: bufio.NewScanner(r)}
	p.out.Buffer(make([]byte, 1<<20), 1<<20)
	var loaded struct{ Loaded float64 }
	if !p.out.Scan() {
		return nil, 0, fmt.Errorf("the engine said nothing: %v", p.out.Err())
	}
	if err := json.Unmarshal(p.out.Bytes(), &loaded); err != nil {
		return nil, 0, err
	}
	return p, loaded.Loaded, nil
}

func (p *peer) ask(q string) (float64, int, error) {
	if err := p.in.Encode(map[string]string{"query": q}); err != nil {
		return 0, 0, err
	}
	if !p.out.Scan() {
		return 0, 0, fmt.Errorf("no answer: %v", p.out.Err())
	}
	var a struct {
		Ms    float64
		Rows  int
		Error string
	}
	if err := json.Unmarshal(p.out.Bytes(), &a); err != nil {
		return 0, 0, err
	}
	if a.Error != "" {
		return 0, 0, fmt.Errorf("%s", a.Error)
	}
	return a.Ms, a.Rows, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	queries := vaultgen.DataviewQueries()
	engine := flag.String("engine", "", "a CommonJS bundle of Dataview's engine (engine.mjs); none: this server alone")
	notes := flag.Int("notes", 10_000, "generated notes")
	rounds := flag.Int("rounds", 20, "rounds, each asking every query of both")
	residentRuns := flag.Int("resident", 0, "instead: the server's resident memory with and without Dataview's pages, in this many fresh processes of each (Linux)")
	settle := flag.Duration("settle", 10*time.Second, "with -resident: how long a process stands idle before it is measured")
	flag.Parse()
	dir, err := os.MkdirTemp("", "dataviewbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := vaultgen.GenerateDataview(dir, *notes, 52); err != nil {
		log.Fatal(err)
	}
	if *residentRuns > 0 {
		fmt.Printf("%d notes; %s %s/%s, %d cores\n", *notes, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
		if err := resident(dir, queries[2].Query, *residentRuns, *settle); err != nil {
			log.Fatal(err)
		}
		return
	}
	ctx := context.Background()
	v, err := native.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	start := time.Now()
	if _, err := v.QueryDataview(ctx, note.DataviewQuery{Query: queries[0].Query}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d notes; %s %s/%s, %d cores\n", *notes, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Printf("this server: index built and first query in %v\n", time.Since(start).Round(time.Millisecond))
	var p *peer
	if *engine != "" {
		var loaded float64
		if p, loaded, err = startPeer(*engine, dir); err != nil {
			log.Fatal(err)
		}
		defer p.cmd.Process.Kill()
		fmt.Printf("Dataview's engine: vault read and indexed in %.0f ms\n", loaded)
	}
	ours := make([][]float64, len(queries))
	theirs := make([][]float64, len(queries))
	rows := make([][2]int, len(queries))
	for range *rounds {
		for i, q := range queries {
			t := time.Now()
			res, err := v.QueryDataview(ctx, note.DataviewQuery{Query: q.Query})
			if err != nil {
				log.Fatalf("%s: %v", q.Name, err)
			}
			ours[i] = append(ours[i], float64(time.Since(t).Microseconds())/1000)
			rows[i][0] = res.Len()
			if p != nil {
				ms, n, err := p.ask(q.Query)
				if err != nil {
					log.Fatalf("%s (Dataview): %v", q.Name, err)
				}
				theirs[i] = append(theirs[i], ms)
				rows[i][1] = n
			}
		}
	}
	fmt.Printf("\n| query | rows | this server, p50 | Dataview's engine, p50 | ratio |\n|---|---|---|---|---|\n")
	for i, q := range queries {
		if p == nil {
			fmt.Printf("| %s | %d | %.2f ms | — | — |\n", q.Name, rows[i][0], median(ours[i]))
			continue
		}
		fmt.Printf("| %s | %d / %d | %.2f ms | %.2f ms | %.3f |\n", q.Name, rows[i][0], rows[i][1], median(ours[i]), median(theirs[i]), median(ours[i])/median(theirs[i]))
	}
}
