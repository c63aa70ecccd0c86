//go:build unix

package obsidiantest

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// WaitGone fails the test unless process pid ends within five seconds. A
// zombie (dead, awaiting its reaper) counts as ended.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d is still alive", pid)
}

// crash makes the fake die by the named signal, as a CLI killed by the
// system or crashing would. The Go runtime's own handler is reset first,
// so the process really ends by the signal rather than by a Go exit.
func crash(name string) {
	sig := map[string]syscall.Signal{"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT}[name]
	if sig == 0 {
		fmt.Fprintf(os.Stderr, "fake obsidian: unknown crash signal %q\n", name)
		os.Exit(2)
	}
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	select {} // the signal is on its way
}

// Kill ends pid, for grandchildren a test leaves running on purpose.
func Kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
