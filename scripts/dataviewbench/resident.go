package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// resident measures the server's resident memory on the vault at dir,
// in separate processes started afresh, rounds times interleaved: with
// the search index alone (one search), and with Dataview's pages too
// (one search, then one Dataview query). Each process is measured once
// it has answered and stood idle for settle, so that the runtime has
// given back what its collections freed.
func resident(dir, query string, rounds int, settle time.Duration) error {
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("dataviewbench-server-%d", os.Getpid()))
	build := exec.Command("go", "build", "-o", bin, "./cmd/obsidian-mcp")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the server: %w", err)
	}
	defer os.Remove(bin)
	kinds := []struct {
		name  string
		calls [][2]any
	}{
		{"search index alone", [][2]any{{"obsidian_search_notes", map[string]any{"query": "garden", "limit": 5}}}},
		{"with Dataview's pages", [][2]any{
			{"obsidian_search_notes", map[string]any{"query": "garden", "limit": 5}},
			{"obsidian_query_dataview", map[string]any{"query": query}},
		}},
	}
	rss := make([][]float64, len(kinds))
	peak := make([][]float64, len(kinds))
	for range rounds {
		for k, kind := range kinds {
			r, p, err := measure(bin, dir, kind.calls, settle)
			if err != nil {
				return fmt.Errorf("%s: %w", kind.name, err)
			}
			rss[k], peak[k] = append(rss[k], r), append(peak[k], p)
		}
	}
	fmt.Printf("\nResident memory of the server process, median of %d fresh processes each, measured %v after its last answer:\n\n", rounds, settle)
	fmt.Printf("| process | VmRSS | VmHWM (peak) |\n|---|---|---|\n")
	for k, kind := range kinds {
		fmt.Printf("| %s | %.0f MB | %.0f MB |\n", kind.name, median(rss[k]), median(peak[k]))
	}
	fmt.Printf("\nDataview's pages add %.1f %% resident (%.0f MB)\n", 100*(median(rss[1])/median(rss[0])-1), median(rss[1])-median(rss[0]))
	return nil
}

// measure starts the server on dir, makes the calls over stdio, waits
// settle, and reads its VmRSS and VmHWM in MB.
func measure(bin, dir string, calls [][2]any, settle time.Duration) (rss, hwm float64, err error) {
	cmd := exec.Command(bin, "--backend", "native", "--vault-path", dir)
	w, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		w.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	in, out := json.NewEncoder(w), bufio.NewScanner(r)
	out.Buffer(make([]byte, 1<<20), 64<<20)
	id := 0
	call := func(method string, params any) error {
		id++
		if err := in.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
			return err
		}
		for out.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Error  json.RawMessage `json:"error"`
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				return err
			}
			if m.ID == nil || *m.ID != id { // a notification
				continue
			}
			if m.Error != nil || m.Result.IsError {
				return fmt.Errorf("%s failed: %s", method, out.Text())
			}
			return nil
		}
		return fmt.Errorf("%s: no answer (%v)", method, out.Err())
	}
	if err := call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "dataviewbench", "version": "1"}}); err != nil {
		return 0, 0, err
	}
	if err := in.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return 0, 0, err
	}
	for _, c := range calls {
		if err := call("tools/call", map[string]any{"name": c[0], "arguments": c[1]}); err != nil {
			return 0, 0, err
		}
	}
	time.Sleep(settle)
	return status(cmd.Process.Pid, "VmRSS"), status(cmd.Process.Pid, "VmHWM"), nil
}

// status reads a kB field of /proc/PID/status, in MB.
func status(pid int, field string) float64 {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}
