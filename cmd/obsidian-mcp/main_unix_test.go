//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestSignalStopsPromptly: SIGTERM during a hung CLI call ends the process
// quickly, with the CLI's process stopped too.
func TestSignalStopsPromptly(t *testing.T) {
	t.Parallel()
	f, pidfile := hungCLI(t)
	cmd, stdin, stdout, stderr := start(t, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=1m")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	if _, err := stdout.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"A.md"}}}`+"\n")
	// Wait until the CLI is running (its grandchild has written its pid).
	pid := obsidiantest.GrandchildPID(t, pidfile)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	awaitCleanExit(t, cmd, stderr, 10*time.Second, "SIGTERM")
	t.Logf("stopped %v after SIGTERM", time.Since(start))
	obsidiantest.WaitGone(t, pid)
}

// TestClientGoneMidCall: the client stops reading (closes its end of
// stdout) while a call hangs on the CLI. The next answer's write fails
// with EPIPE rather than killing the process by SIGPIPE, which would
// orphan the CLI: the server cancels the call, stops the CLI and exits 0.
func TestClientGoneMidCall(t *testing.T) {
	t.Parallel()
	f, pidfile := hungCLI(t)
	cmd, stdin, stdout, stderr := startRaw(t, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=10m")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"A.md"}}}`+"\n")
	pid := obsidiantest.GrandchildPID(t, pidfile)
	stdout.Close()                                                         // the client stops reading
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n") // its answer cannot be written
	awaitCleanExit(t, cmd, stderr, time.Minute, "the client went away")    // far below the 10-minute CLI timeout
	obsidiantest.WaitGone(t, pid)
}

// grandchildEnds fails the test unless the CLI's grandchild pid ends: the
// server ends the CLI's whole process group.
func grandchildEnds(t *testing.T, pid int) { obsidiantest.WaitGone(t, pid) }

// terminate asks the process to stop as a service manager does: SIGTERM.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// killedExit is how Go says a process ended by Process.Kill ended.
const killedExit = "signal: killed"

// whileBusy does op once: on Unix nothing refuses a program a file
// another has open.
func whileBusy(op func() error) error { return op() }

// savesApart is the chunked outside writer's pause between two saves.
const savesApart = 5 * time.Millisecond
