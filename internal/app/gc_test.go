package app

import (
	"bufio"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// TestRelaxGCForBuild: a build keeps the collector's pace (GOGC) as it is.
func TestRelaxGCForBuild(t *testing.T) {
	orig := debug.SetGCPercent(40)
	defer debug.SetGCPercent(orig)
	end := relaxGCForBuild(vaultindex.Build{})
	if got := debug.SetGCPercent(40); got != 40 {
		t.Errorf("during a build GC percent = %d, want 40 as set", got)
	}
	end()
	if got := debug.SetGCPercent(40); got != 40 {
		t.Errorf("after a build GC percent = %d, want 40", got)
	}
}

// TestMemoryLimit: the soft limit is set unless GOMEMLIMIT is, lifted
// during an index build, and put back after.
func TestMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	debug.SetMemoryLimit(math.MaxInt64)
	limitMemory(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] })
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set the limit became %d", got)
	}
	limitMemory(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("limit = %d, want %d", got, softMemoryLimit)
	}
	end := relaxGCForBuild(vaultindex.Build{})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("during a build the limit is %d", got)
	}
	end()
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("after a build the limit is %d, want %d back", got, softMemoryLimit)
	}
	// An index that outgrew the limit raises it to twice the heap.
	big := make([]byte, softMemoryLimit)
	end = relaxGCForBuild(vaultindex.Build{})
	end()
	if got := debug.SetMemoryLimit(-1); got < 2*softMemoryLimit {
		t.Errorf("after a build of %d MB the limit is %d", len(big)>>20, got)
	}
	runtime.KeepAlive(big)
}

// TestRelaxGCForLoad: while a snapshot loads the collector waits until
// the heap reaches a bound (the soft limit at least, loadHeap of the
// snapshot's size, and never past a limit the user set); then the pace
// and the limit are put back.
func TestRelaxGCForLoad(t *testing.T) {
	origPct := debug.SetGCPercent(40)
	defer debug.SetGCPercent(origPct)
	origLimit := debug.SetMemoryLimit(softMemoryLimit)
	defer debug.SetMemoryLimit(origLimit)
	for _, c := range []struct {
		limit, size, want int64
	}{
		{softMemoryLimit, 20 << 20, softMemoryLimit}, // a small vault: the soft limit
		{softMemoryLimit, 100 << 20, 364 << 20},      // 3 × 100 MB + 64 MB
		{softMemoryLimit, 227 << 20, 512 << 20},      // at most 512 MB
		{300 << 20, 227 << 20, 300 << 20},            // the user's limit, lower
		{math.MaxInt64, 227 << 20, 512 << 20},        // the user set none
		{1 << 30, 20 << 20, softMemoryLimit},         // the user's, higher: ours
	} {
		debug.SetMemoryLimit(c.limit)
		end := relaxGCForBuild(vaultindex.Build{Load: true, Size: c.size})
		if got := debug.SetGCPercent(-1); got != -1 {
			t.Errorf("limit %d, size %d: during a load GC percent = %d, want off", c.limit, c.size, got)
		}
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("limit %d, size %d: during a load the limit is %d, want %d", c.limit, c.size, got, c.want)
		}
		end()
		if got := debug.SetGCPercent(40); got != 40 {
			t.Errorf("after a load GC percent = %d, want 40 back", got)
		}
		if got := debug.SetMemoryLimit(-1); c.limit != softMemoryLimit && got != c.limit {
			t.Errorf("after a load the limit is %d, want the user's %d back", got, c.limit)
		}
	}
}

// gcPercent reads the collector's pace.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestHoldGC: without GOGC the collector waits until start-up is
// settled, then keeps the server's pace; GOGC set by the user is left
// alone.
func TestHoldGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	origLimit := debug.SetMemoryLimit(softMemoryLimit)
	defer debug.SetMemoryLimit(origLimit)
	settle := holdGC(func(string) string { return "" })
	if got := gcPercent(); got != -1 {
		t.Errorf("during start-up GC percent = %d, want off", got)
	}
	if got := debug.SetMemoryLimit(-1); got != holdHeap {
		t.Errorf("during start-up the memory limit is %d, want %d", got, holdHeap)
	}
	settle()
	settle()
	if got := gcPercent(); got != serverGCPercent {
		t.Errorf("after start-up GC percent = %d, want %d", got, serverGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("after start-up the memory limit is %d, want %d back", got, softMemoryLimit)
	}
	debug.SetMemoryLimit(16 << 20) // a user's, lower: kept
	holdGC(func(string) string { return "" })()
	if got := debug.SetMemoryLimit(-1); got != 16<<20 {
		t.Errorf("with a lower limit set the limit became %d", got)
	}
	debug.SetGCPercent(100)
	holdGC(func(k string) string { return map[string]string{"GOGC": "100"}[k] })()
	if got := gcPercent(); got != 100 {
		t.Errorf("with GOGC set GC percent = %d, want the user's 100", got)
	}
}

// TestStdioStartHoldsGC: the stdio server starts with the collector
// waiting, and keeps the server's pace from its first answers on (the
// tool list waits for the work put off until initialize is answered,
// which settles it first); Main leaves it at that pace.
func TestStdioStartHoldsGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"--backend", "native", "--vault-path", dir, "--index-dir", "off"},
			func(string) string { return "" }, Streams{In: inR, Out: outW, Err: errW}, "1.0.0")
		_ = errW.Close()
	}()
	logs := bufio.NewScanner(errR)
	for logs.Scan() && !strings.Contains(logs.Text(), "obsidian-mcp ready") {
	}
	go func() { _, _ = io.Copy(io.Discard, errR) }()
	if got := gcPercent(); got != -1 {
		t.Errorf("before the first answer GC percent = %d, want off", got)
	}
	answers := bufio.NewScanner(outR)
	answers.Buffer(nil, 1<<22)
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if _, err := io.WriteString(inW, req+"\n"); err != nil {
			t.Fatal(err)
		}
		if !answers.Scan() {
			t.Fatalf("no answer to %s", req)
		}
	}
	if got := gcPercent(); got != serverGCPercent {
		t.Errorf("after the tool list GC percent = %d, want %d", got, serverGCPercent)
	}
	_ = inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
	if got := gcPercent(); got != serverGCPercent {
		t.Errorf("after Main GC percent = %d, want %d", got, serverGCPercent)
	}
}
