//go:build unix

package main

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPGoSDKCancel: over HTTP, cancelling a call in the Go SDK stops
// the call's CLI process group on the server, which goes on serving.
func TestHTTPGoSDKCancel(t *testing.T) {
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
