//go:build windows

package main

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/shutdown"
)

// grandchildEnds ends the CLI's grandchild pid. Windows ends a process,
// not its tree (it has no POSIX process groups, and a job object would
// also end the app that Obsidian.com may start, which must outlive the
// call): the server ends the CLI it started and lets go of the pipes after
// WaitDelay. So nothing is there to check; the test only tidies up.
func grandchildEnds(t *testing.T, pid int) {
	t.Helper()
	obsidiantest.Kill(pid)
}

// terminate asks the process to stop as a program without a share in
// its console can: by setting its stop event (internal/shutdown), which
// the server creates first thing, so it is waited for a while if the
// process has only just started. Ctrl+Break does the same from the
// server's own console.
func terminate(p *os.Process) error { return shutdown.Ask(p.Pid, 30*time.Second) }

// killedExit is how Go says a process ended by Process.Kill
// (TerminateProcess with exit code 1) ended.
const killedExit = "exit status 1"

// whileBusy does op as a careful Windows program does: again while
// another program holds the file in a way that refuses it (a sharing
// violation, or a rename over a file held open), or while its name is
// briefly absent, for up to 10 s. Go opens files without
// FILE_SHARE_DELETE, as the C runtime's fopen does, so it is refused while
// any program renames that file; and a note the server replaces has no
// name for the microseconds between its two renames, as a note an editor
// saves by renaming does (docs/data-safety.md).
func whileBusy(op func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := op()
		if err == nil || time.Now().After(deadline) ||
			!errors.Is(err, windows.ERROR_SHARING_VIOLATION) && !errors.Is(err, windows.ERROR_ACCESS_DENIED) &&
				!errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// savesApart is the chunked outside writer's pause between two saves.
// Without leases an update needs a pause between two saves longer than
// its round (read, write, rename), and Wine's system calls are slower
// than Linux's: 5 ms apart, every append answered BUSY (none lost).
const savesApart = 20 * time.Millisecond
