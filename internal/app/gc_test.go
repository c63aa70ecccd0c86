package app

import (
	"runtime/debug"
	"testing"
)

// TestRelaxGCForBuild: collections are spaced out during a build and the
// setting is put back after; a laxer setting of the user's is kept.
func TestRelaxGCForBuild(t *testing.T) {
	orig := debug.SetGCPercent(40)
	defer debug.SetGCPercent(orig)
	end := relaxGCForBuild()
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("during a build GC percent = %d, want 200", got)
	}
	end()
	if got := debug.SetGCPercent(40); got != 40 {
		t.Errorf("after a build GC percent = %d, want 40 back", got)
	}
	debug.SetGCPercent(-1) // GOGC=off
	end = relaxGCForBuild()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC=off became %d during a build", got)
	}
	end()
}
