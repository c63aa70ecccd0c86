//go:build unix

package main

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestSignalStopsPromptly: SIGTERM during a hung CLI call ends the process
// quickly, with the CLI's process stopped too.
func TestSignalStopsPromptly(t *testing.T) {
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
	f, pidfile := hungCLI(t)
	cmd, stdin, stdout, stderr := startRaw(t, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=10m")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"A.md"}}}`+"\n")
	pid := obsidiantest.GrandchildPID(t, pidfile)
	stdout.Close()                                                         // the client stops reading
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n") // its answer cannot be written
	awaitCleanExit(t, cmd, stderr, time.Minute, "the client went away")    // far below the 10-minute CLI timeout
	obsidiantest.WaitGone(t, pid)
}

// hungCLI installs a fake CLI that never answers and leaves a grandchild
// holding its pipes; the grandchild writes its pid to the returned file.
func hungCLI(t *testing.T) (*obsidiantest.Fake, string) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	return obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}, Grandchild: pidfile}), pidfile
}

// awaitCleanExit waits up to limit for cmd to exit with status 0 after
// what happened to it.
func awaitCleanExit(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder, limit time.Duration, after string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after %s: %v (stderr %s)", after, err, stderr.String())
		}
	case <-time.After(limit):
		t.Fatalf("still running %v after %s", limit, after)
	}
}
