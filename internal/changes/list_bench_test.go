package changes

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// BenchmarkList10000 is obsidian_history's read of a record of 10,000
// changes (the bound: 50 ms): the first page, newest first; a
// note's changes, which reads every change; and the first list of a
// process, which reads every change's file. go test -run X -bench List10000 ./internal/changes
func BenchmarkList10000(b *testing.B) {
	dir := b.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	base := b.TempDir()
	r, err := Open(base, dir, root, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	r.now = func() time.Time { n++; return start.Add(time.Duration(n) * time.Second) }
	for i := range 10000 {
		p := r.Begin("obsidian_append_to_note", "claude-ai")
		part, err := p.Part(note.PartEdit, fmt.Sprintf("Notes/N%d.md", i%500), "", []byte(fmt.Sprintf("before %d\n", i)), []byte(fmt.Sprintf("after %d\n", i)))
		if err != nil {
			b.Fatal(err)
		}
		part.Landed("")
		p.End()
	}
	for _, c := range []struct {
		name string
		f    Filter
		cold bool
	}{
		{"first page", Filter{Limit: 20}, false},
		{"one note", Filter{Path: "Notes/N7.md", Limit: 20}, false},
		{"first list of a process", Filter{Limit: 20}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				read := r
				if c.cold {
					if read, err = Open(base, dir, root, Limits{}); err != nil {
						b.Fatal(err)
					}
				}
				l, err := read.List(c.f)
				if err != nil || len(l.Changes) != 20 {
					b.Fatalf("%d changes, %v", len(l.Changes), err)
				}
				if c.cold {
					read.Close()
				}
			}
		})
	}
}
