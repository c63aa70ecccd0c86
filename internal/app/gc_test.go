package app

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestRelaxGCForBuild: a build keeps the collector's pace (GOGC) as it is.
func TestRelaxGCForBuild(t *testing.T) {
	orig := debug.SetGCPercent(40)
	defer debug.SetGCPercent(orig)
	end := relaxGCForBuild()
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
	end := relaxGCForBuild()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("during a build the limit is %d", got)
	}
	end()
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("after a build the limit is %d, want %d back", got, softMemoryLimit)
	}
	// An index that outgrew the limit raises it to twice the heap.
	big := make([]byte, softMemoryLimit)
	end = relaxGCForBuild()
	end()
	if got := debug.SetMemoryLimit(-1); got < 2*softMemoryLimit {
		t.Errorf("after a build of %d MB the limit is %d", len(big)>>20, got)
	}
	runtime.KeepAlive(big)
}
