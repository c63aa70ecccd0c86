package app

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// relaxGCForBuild is the server's collector policy while the search index
// reads many notes at once, or loads its saved copy
// (native.WithIndexBuildHook). During a build the soft memory limit is
// lifted, since a large vault's index is a live heap past it and near the
// limit the collector would run without pause for the whole build. The
// pace (GOGC) stays: the postings are byte lists the collector does not
// scan, and at 100,000 notes a build took as long at GOGC 40 as at 100 or
// 200, with a peak of 472 MB instead of 627 or 891 (docs/benchmarks.md).
// A load keeps nearly all it allocates, so a collection during it scans
// a heap that only grows, to free little: the collector waits until the
// heap reaches loadHeap(b.Size) (a fifth of a restart on the Help vault).
// Afterwards the garbage goes back to the system at once rather than
// over minutes: the server's resident size is what the user sees. It is
// process policy, so it lives here, in the program's wiring, not in the
// index.
func relaxGCForBuild(b vaultindex.Build) (end func()) {
	pct := 0
	limit := debug.SetMemoryLimit(math.MaxInt64)
	if b.Load {
		pct = debug.SetGCPercent(-1)
		debug.SetMemoryLimit(min(max(loadHeap(b.Size), softMemoryLimit), userLimit(limit)))
	}
	return func() {
		if b.Load {
			debug.SetGCPercent(pct)
		}
		if limit == softMemoryLimit {
			// Ours, not the user's: an index larger than the limit must
			// not keep the collector running for good after the build.
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			limit = max(limit, 2*int64(ms.HeapAlloc))
		}
		debug.SetMemoryLimit(limit)
		// Off the answer's path: it collects and returns pages, tens of
		// milliseconds the first search need not wait for.
		go debug.FreeOSMemory()
	}
}

// loadHeap is how large the heap may grow, uncollected, while a snapshot
// of size bytes loads: three times its size and 64 MB, within 512 MB
// (a 100,000-note snapshot is 227 MB, most of it positions that stay on
// disk; the peak of such a restart stays under the 600 MB of issue 31).
func loadHeap(size int64) int64 {
	return min(3*size+64<<20, 512<<20)
}

// userLimit is the memory limit the user set (GOMEMLIMIT), which a load
// does not go past; none when the limit is the server's own.
func userLimit(limit int64) int64 {
	if limit == softMemoryLimit {
		return math.MaxInt64
	}
	return limit
}

// serverGCPercent is the collector's pace (GOGC) once the server runs.
// The search index is most of the heap and lives as long as the process;
// Go's default (collect when the heap doubles) would let the resident
// size reach twice the index. Collecting at 40% above the live heap keeps
// a 10,000-note vault under ~150 MB, for a little more GC work per
// search.
const serverGCPercent = 40

// holdGC is the collector's policy from the start of the process to the
// end of start-up (settle, which a stdio server runs once its first
// answer is out): no collection until the heap reaches holdHeap. Start-up
// allocates a few megabytes it mostly keeps, and at the server's pace on
// a heap of 2 MB the collector ran six or seven times before initialize
// was answered, about 1 ms of a 13 ms start; a first message of hundreds
// of megabytes is still read within bounds (TestSoakStdioHugeLine).
// Then the pace is serverGCPercent and the limit what it was. GOGC set by
// the user wins throughout, and so does a lower GOMEMLIMIT.
func holdGC(getenv func(string) string) (settle func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(limit, holdHeap))
	return sync.OnceFunc(func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(serverGCPercent)
	})
}

// holdHeap bounds the heap while start-up holds the collector: ten times
// what start-up keeps.
const holdHeap = 32 << 20

// softMemoryLimit is the heap size past which the collector works harder
// rather than let garbage grow with the live heap: answers of several
// megabytes (a large note read whole, many at once) otherwise leave RSS at
// twice what is alive, or more when the machine is busy and the collector
// falls behind. It is soft: a larger live heap is served, collected more
// often. GOMEMLIMIT, when set, wins.
const softMemoryLimit = 192 << 20

// limitMemory sets the soft memory limit unless GOMEMLIMIT did.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}
