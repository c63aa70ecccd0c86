package native

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// BenchmarkAppendRecorded is an append alone and with its change
// recorded, twice each, interleaved (docs/changes.md, Cost).
func BenchmarkAppendRecorded(b *testing.B) {
	for _, recorded := range []bool{false, true, false, true} {
		name := "alone"
		if recorded {
			name = "recorded"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "N.md"), []byte("# note\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			v, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			r, err := changes.Open(b.TempDir(), dir, nil, changes.DefaultLimits)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				ctx := context.Background()
				var p *changes.Pending
				if recorded {
					p = r.Begin("obsidian_append_to_note", "bench")
					ctx = changes.With(ctx, p)
				}
				if _, err := v.Append(ctx, note.ByPath("N.md"), "a line", false); err != nil {
					b.Fatal(err)
				}
				p.End()
			}
		})
	}
}
