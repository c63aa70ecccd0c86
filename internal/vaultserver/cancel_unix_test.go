//go:build unix

package vaultserver

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestCancelledCallStopsTheCLI: notifications/cancelled for a running call
// stops its CLI process group, and the call gets no answer (MCP: the
// receiver should not respond); the connection carries on.
func TestCancelledCallStopsTheCLI(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"file"}, Grandchild: pidfile})
	obsidiantest.Fixture(f)
	cfg := testConfig(f)
	cfg.Timeout = time.Minute
	s := startServer(t, cfg)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"Welcome.md"}}}`)
	pid := obsidiantest.GrandchildPID(t, pidfile)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)
	obsidiantest.WaitGone(t, pid)
	// Close stdin and read to the end: the server first settles every
	// request it read, so any answer to 5 would be on the wire by then.
	s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	s.in.Close()
	var sawPing bool
	for {
		line, err := s.out.ReadString('\n')
		if strings.Contains(line, `"id":5`) {
			t.Fatalf("the cancelled call was answered: %s", line)
		}
		sawPing = sawPing || strings.Contains(line, `"id":6,`)
		if err != nil {
			break
		}
	}
	if !sawPing {
		t.Error("the ping after the cancellation was not answered")
	}
	if err := <-s.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	s.done <- nil // for the harness's cleanup
	if !strings.Contains(s.logs.String(), "outcome=CANCELLED") {
		t.Errorf("cancellation not logged:\n%s", s.logs.String())
	}
}
