//go:build unix

package main

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestHTTPGoSDKCancel: over HTTP, cancelling a call in the Go SDK stops
// the call's CLI process group on the server, which goes on serving.
func TestHTTPGoSDKCancel(t *testing.T) {
	t.Parallel()
	f, pidfile := hungCLI(t)
	s := serve(t, []string{"--backend", "cli", "--timeout", "10m"}, "OBSIDIAN_BIN="+f.Bin)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http-cancel", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr)
	}
	cancelHungCall(t, cs, pidfile)
	_ = cs.Close()
	s.stop(t)
	if !strings.Contains(s.stderr.String(), "outcome=CANCELLED") {
		t.Errorf("the server did not log the call as cancelled:\n%s", s.stderr)
	}
}

// TestHTTPTypeScriptSDKCancel: the TypeScript SDK aborts a call over HTTP;
// the call's CLI process group stops, and the session still answers.
func TestHTTPTypeScriptSDKCancel(t *testing.T) {
	outside(t)
	t.Parallel()
	f, pidfile := hungCLI(t)
	s := serve(t, []string{"--backend", "cli", "--timeout", "10m"}, "OBSIDIAN_BIN="+f.Bin)
	var got struct{ Cancelled, Ping outcome }
	tsClient(t, "cancel", map[string]any{"url": s.url, "waitFile": pidfile,
		"steps": []step{{Tool: "obsidian_read_note", Arguments: map[string]any{"path": "A.md"}}}}, &got)
	if !strings.Contains(got.Cancelled.String(), "the user changed their mind") {
		t.Errorf("the aborted call: %s", got.Cancelled)
	}
	if got.Ping.Result == nil {
		t.Errorf("ping after the cancel: %s", got.Ping)
	}
	obsidiantest.WaitGone(t, obsidiantest.GrandchildPID(t, pidfile))
	s.stop(t)
	if !strings.Contains(s.stderr.String(), "outcome=CANCELLED") {
		t.Errorf("the server did not log the call as cancelled:\n%s", s.stderr)
	}
}
