package httpapi

import (
	"net"
	"testing"
)

// TestReachableURL: what a log line or doctor shows to reach a listener;
// every address is reached on 127.0.0.1, however Go reports it.
func TestReachableURL(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1:3000": "http://127.0.0.1:3000/mcp",
		"0.0.0.0:3000":   "http://127.0.0.1:3000/mcp",
		"[::]:3000":      "http://127.0.0.1:3000/mcp",
		"[::1]:3000":     "http://[::1]:3000/mcp",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := ReachableURL(a); got != want {
			t.Errorf("ReachableURL(%s) = %s, want %s", addr, got, want)
		}
	}
}
