package vaultserver

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// BenchmarkHistory100k is obsidian_history through the whole server (the
// protocol, the tool, the record read from memory) on a generated vault of
// 100,000 notes whose record holds 10,000 changes: the newest page, and
// one note's changes (every change looked at). The bound is 50 ms.
// go test -run X -bench History100k -benchtime 50x ./internal/vaultserver
func BenchmarkHistory100k(b *testing.B) {
	f := obsidiantest.Install(b, obsidiantest.Scenario{})
	if _, err := vaultgen.Generate(f.Vault, 100_000, 51); err != nil {
		b.Fatal(err)
	}
	base := b.TempDir()
	root, err := os.OpenRoot(f.Vault)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	rec, err := changes.Open(base, f.Vault, root, changes.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10_000 {
		p := rec.Begin("obsidian_append_to_note", "claude-ai")
		part, err := p.Part(note.PartEdit, fmt.Sprintf("n%d.md", i%2000), "", []byte(fmt.Sprintf("before %d\n", i)), []byte(fmt.Sprintf("after %d\n", i)))
		if err != nil {
			b.Fatal(err)
		}
		part.Landed("")
		p.End()
	}
	rec.Close()
	cfg := testConfig(f)
	cfg.Backend, cfg.VaultPath, cfg.ObsidianBin, cfg.ChangesDir = backend.Native, f.Vault, "/nonexistent/bin/obsidian", base
	s := startServer(b, cfg)
	s.initialize()
	for _, c := range []struct{ name, args string }{
		{"newest page", `{"limit":20}`},
		{"one note", `{"path":"n7.md","limit":20}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var worst time.Duration
			i := 0
			for b.Loop() {
				i++
				start := time.Now()
				resp := s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obsidian_history","arguments":%s}}`, i, c.args))
				worst = max(worst, time.Since(start))
				if r := decode(b, resp); r.Error != nil || r.Result == nil || r.Result.IsError {
					b.Fatalf("history: %s", resp)
				}
			}
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
		})
	}
}
