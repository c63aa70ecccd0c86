package vaultserver

import (
	"fmt"
	"log/slog"
	"os/exec"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// BenchmarkToolCall measures the server's own overhead per tool call: the
// same single CLI command (`file path=…`) run bare, and through the whole
// server (stdio framing, validation, middleware, wire layer, CLI executor).
// The difference between the two is our overhead; the fake answers at once.
// Run with `make bench`.
func BenchmarkToolCall(b *testing.B) {
	f := obsidiantest.Install(b, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	b.Run("bare_exec", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command(f.Bin, "file", "path=A.md").Output(); err != nil || len(out) == 0 {
				b.Fatalf("exec: %v", err)
			}
		}
	})
	b.Run("server_file_info", func(b *testing.B) { benchCalls(b, f, "obsidian_file_info") })
	// A read touches the CLI only once per process (to learn the vault
	// folder), then reads the file directly: this is the server alone.
	b.Run("server_read_note", func(b *testing.B) { benchCalls(b, f, "obsidian_read_note") })
}

// benchCalls calls tool on A.md through a fresh server, one call at a time.
func benchCalls(b *testing.B, f *obsidiantest.Fake, tool string) {
	s := startServer(b, benchConfig(f))
	i := 0
	for b.Loop() {
		i++
		resp := s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":"A.md"}}}`, i, tool))
		if decode(b, resp).Error != nil {
			b.Fatalf("call failed: %s", resp)
		}
	}
}

// benchConfig logs at info, as a deployed server does.
func benchConfig(f *obsidiantest.Fake) Config {
	c := testConfig(f)
	c.LogLevel = slog.LevelInfo
	return c
}
