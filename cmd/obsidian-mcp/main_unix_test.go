//go:build unix

package main

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestSignalStopsPromptly: SIGTERM during a hung CLI call ends the process
// quickly, with the CLI's process stopped too.
func TestSignalStopsPromptly(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}, Grandchild: pidfile})
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
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v (stderr %s)", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10s after SIGTERM")
	}
	t.Logf("stopped %v after SIGTERM", time.Since(start))
	obsidiantest.WaitGone(t, pid)
}

// TestClientGoneMidCall: the client stops reading (closes its end of
// stdout) while a call hangs on the CLI. The next answer's write fails
// with EPIPE rather than killing the process by SIGPIPE, which would
// orphan the CLI: the server cancels the call, stops the CLI and exits 0.
func TestClientGoneMidCall(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}, Grandchild: pidfile})
	cmd, stdin, stdout, stderr := startRaw(t, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_TIMEOUT=10m")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"A.md"}}}`+"\n")
	pid := obsidiantest.GrandchildPID(t, pidfile)
	stdout.Close()                                                         // the client stops reading
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n") // its answer cannot be written
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after the client went away: %v (stderr %s)", err, stderr.String())
		}
	case <-time.After(time.Minute): // far below the 10-minute CLI timeout
		t.Fatalf("still running a minute after the client went away (stderr %s)", stderr.String())
	}
	obsidiantest.WaitGone(t, pid)
}
