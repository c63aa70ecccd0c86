//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
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
// stdout) while a call hangs on the CLI, and keeps its stdin open. The
// server cancels the call, stops the CLI and exits 0, however it learns
// of it:
//   - the next answer's write fails with EPIPE, rather than killing the
//     process by SIGPIPE, which would orphan the CLI;
//   - the answer to a ping is read, and only then is the client's end
//     closed for good, by another process that held a copy of it (as a
//     process the client forks holds it until it runs its program: a
//     moment, under load, in which the first case's one write once went
//     through and the server ran on until the test gave up a minute
//     later). No write fails, as none is made: the server finds its
//     output closed while the call is pending.
func TestClientGoneMidCall(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	for name, goAway := range map[string]func(t *testing.T, stdin io.Writer, stdout io.Closer){
		"next write fails": func(t *testing.T, stdin io.Writer, stdout io.Closer) {
			stdout.Close()              // the client stops reading
			io.WriteString(stdin, ping) // its answer cannot be written
		},
		"after its last answer": func(t *testing.T, stdin io.Writer, stdout io.Closer) {
			// The other holder reads one line (the ping's answer) and exits.
			holder := exec.Command("sh", "-c", "head -n 1 <&3 >/dev/null")
			holder.ExtraFiles = []*os.File{stdout.(*os.File)}
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			stdout.Close() // the client's own copy
			io.WriteString(stdin, ping)
			if err := holder.Wait(); err != nil {
				t.Fatalf("the other holder of stdout: %v", err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, pidfile := hungCLI(t)
			cmd, stdin, stdout, stderr := startRaw(t, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=10m")
			io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"A.md"}}}`+"\n")
			pid := obsidiantest.GrandchildPID(t, pidfile)
			goAway(t, stdin, stdout)
			awaitCleanExit(t, cmd, stderr, time.Minute, "the client went away") // far below the 10-minute CLI timeout
			obsidiantest.WaitGone(t, pid)
		})
	}
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
