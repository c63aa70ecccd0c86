package app

import (
	"math"
	"runtime"
	"runtime/debug"
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
