package testenv

import (
	"testing"
	"time"
)

// Eventually polls cond until it holds, and fails t saying what did not
// happen if it has not within. A test waits this way for what another
// goroutine or process does; it never sleeps to prove that something did
// not happen.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}
