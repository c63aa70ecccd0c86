package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestUnrecordableWriteRefused: a write whose change the record cannot
// keep is not made, saying why; the note stays as it was.
func TestUnrecordableWriteRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "N.md"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r, err := changes.Open(t.TempDir(), dir, nil, changes.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The record's folder of entries becomes a file: nothing can be
	// written there, whoever runs the test.
	entries := filepath.Join(r.Dir(), "log")
	if err := os.RemoveAll(entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entries, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(ctx context.Context) error{
		"append": func(ctx context.Context) error {
			_, err := v.Append(ctx, note.ByPath("N.md"), "more", false)
			return err
		},
		"create": func(ctx context.Context) error {
			_, err := v.Create(ctx, note.CreateRequest{Path: "New.md", Content: "x"})
			return err
		},
		"delete": func(ctx context.Context) error {
			_, err := v.Delete(ctx, note.ByPath("N.md"), false)
			return err
		},
		"move": func(ctx context.Context) error {
			_, err := v.Move(ctx, note.ByPath("N.md"), "Elsewhere/")
			return err
		},
	} {
		p := r.Begin("obsidian_"+name, "test")
		err := write(changes.With(context.Background(), p))
		if err == nil || !strings.Contains(err.Error(), "could not be recorded") {
			t.Errorf("%s with no record to keep it: %v", name, err)
		}
		if c := p.End(); c.ID != "" {
			t.Errorf("%s: a change kept: %+v", name, c)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "N.md")); err != nil || string(data) != "before\n" {
		t.Errorf("the note after refused writes: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "New.md")); !os.IsNotExist(err) {
		t.Errorf("a refused create made the note (%v)", err)
	}
}

// TestFailedOverwriteSaysSo: an overwrite whose write fails reports the
// failure, and its change keeps nothing (the error was lost once, to a
// shadowed variable: the call answered success and wrote nothing).
func TestFailedOverwriteSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "A.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r, err := changes.Open(t.TempDir(), dir, nil, changes.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, rec := range []bool{false, true} {
		ctx := context.Background()
		var p *changes.Pending
		if rec {
			p = r.Begin("obsidian_create_note", "test")
			ctx = changes.With(ctx, p)
		}
		// A.md is a file: nothing can be written below it.
		_, err := v.Create(ctx, note.CreateRequest{Path: "A.md/B.md", Content: "x", Overwrite: true})
		if err == nil {
			t.Errorf("recorded=%v: an overwrite that wrote nothing answered success", rec)
		}
		if c := p.End(); c.ID != "" {
			t.Errorf("a failed overwrite left a change: %+v", c)
		}
	}
}
