package native

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// copyExample copies examples/vault into a temporary folder.
func copyExample(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "examples", "vault")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// resolvedLinks maps "source: link text" to the file each link resolves to.
func resolvedLinks(t *testing.T, v *Engine) map[string]string {
	t.Helper()
	files, err := v.Files()
	if err != nil {
		t.Fatal(err)
	}
	ix := links.NewIndex(files)
	out := map[string]string{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		data, err := v.root.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range links.Scan(data) {
			if target := ix.Resolve(l.Path, f); target != "" {
				out[fmt.Sprintf("%s#%d", f, i)] = target
			}
		}
	}
	return out
}

// TestExampleVaultKeepsEveryLink moves and renames notes of the example
// vault and checks, after each step, that every link that resolved still
// resolves to the same note, at its new path.
func TestExampleVaultKeepsEveryLink(t *testing.T) {
	dir := copyExample(t)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	steps := []struct {
		name         string
		do           func() (note.Moved, error)
		links, notes int
	}{
		{"rename Garden Plan", func() (note.Moved, error) { return v.Rename(ctx, note.ByName("Garden Plan"), "Allotment") }, 4, 4},
		{"move a note with relative links", func() (note.Moved, error) { return v.Move(ctx, note.ByName("Ben Okafor"), "Team/Dev") }, 1, 1},
		{"move a note linked by name only", func() (note.Moved, error) { return v.Move(ctx, note.ByName("website redesign"), "Archive") }, 0, 0},
		{"rename a duplicate name", func() (note.Moved, error) { return v.Rename(ctx, note.ByPath("Projects/Index.md"), "Overview") }, 1, 1},
		{"move Welcome", func() (note.Moved, error) { return v.Move(ctx, note.ByPath("Welcome.md"), "Start/Home.md") }, 1, 1},
	}
	for _, s := range steps {
		before := resolvedLinks(t, v)
		m, err := s.do()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		after := resolvedLinks(t, v)
		for key, target := range before {
			src, _, _ := strings.Cut(key, "#")
			if src == m.From {
				key = m.To + strings.TrimPrefix(key, src)
			}
			if target == m.From {
				target = m.To
			}
			if after[key] != target {
				t.Errorf("%s: link %s resolves to %q, want %q", s.name, key, after[key], target)
			}
		}
		if m.Links == nil || m.Links.Links != s.links || m.Links.Notes != s.notes {
			t.Errorf("%s: rewrote %+v, want %d links in %d notes", s.name, m.Links, s.links, s.notes)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "Ideas", "Index.md")); !strings.Contains(string(got), "```\n[[Garden Plan]]\n```") ||
		!strings.Contains(string(got), "`[[Website Redesign]]`") {
		t.Errorf("links in code were touched:\n%s", got)
	}
}

func TestListingFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	age := func(rel string) { // as if last changed long ago: trusted
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	write("a/One.md")
	write("b/Two.md")
	write(".hidden/Three.md")
	for _, d := range []string{".", "a", "b"} {
		age(d)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	list := func() []string {
		t.Helper()
		files, err := v.Files()
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(files)
	}
	if got := list(); !slices.Equal(got, []string{"a/One.md", "b/Two.md"}) {
		t.Fatalf("files = %q", got)
	}
	// Changes made behind the engine's back, by another program.
	write("a/New.md")
	if err := os.Remove(filepath.Join(dir, "b", "Two.md")); err != nil {
		t.Fatal(err)
	}
	write("c/d/Deep.md")
	if got := list(); !slices.Equal(got, []string{"a/New.md", "a/One.md", "c/d/Deep.md"}) {
		t.Fatalf("after changes, files = %q", got)
	}
	if err := os.RemoveAll(filepath.Join(dir, "c")); err != nil {
		t.Fatal(err)
	}
	if got := list(); !slices.Equal(got, []string{"a/New.md", "a/One.md"}) {
		t.Fatalf("after removing a folder, files = %q", got)
	}
	// A change within the folder's timestamp tick is still seen: recently
	// modified folders are re-read on every call.
	write("a/Same tick.md")
	if got := list(); !slices.Contains(got, "a/Same tick.md") {
		t.Fatalf("same-tick change missed: %q", got)
	}
	if _, err := v.locate(context.Background(), note.ByName("same tick")); err != nil {
		t.Errorf("resolving the new note: %v", err)
	}
}

func TestConcurrentEditsLoseNothing(t *testing.T) {
	v, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if _, err := v.Create(ctx, note.CreateRequest{Path: "log.md"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := v.Append(ctx, note.ByName("log"), fmt.Sprintf("line %02d", i), false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := v.Read(ctx, note.ByPath("log.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got.Content, "line "); n != 40 {
		t.Errorf("%d of 40 lines survived:\n%s", n, got.Content)
	}
}

func TestFileErrorMapping(t *testing.T) {
	for err, want := range map[error]errors.Kind{
		&fs.PathError{Op: "open", Path: "a", Err: fs.ErrPermission}:                         errors.PermissionDenied,
		&fs.PathError{Op: "open", Path: "a", Err: fs.ErrNotExist}:                           errors.FileNotFound,
		&fs.PathError{Op: "openat", Path: "a", Err: errors.New("path escapes from parent")}: errors.PermissionDenied,
		fs.ErrExist:                errors.FileExists,
		errors.New("disk on fire"): errors.Internal,
	} {
		if got := errors.From(FileError(err, "a.md")).Kind; got != want {
			t.Errorf("FileError(%v) = %s, want %s", err, got, want)
		}
	}
}

func TestOpenRefusesMissingFolder(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope"))
	if e := errors.From(err); e.Kind != errors.VaultNotFound || !strings.Contains(e.Hint, "--vault-path") {
		t.Errorf("Open(missing) = %v", err)
	}
}

func TestMomentFormat(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 5, 3, 0, time.UTC)
	for format, want := range map[string]string{
		"YYYY-MM-DD":      "2026-11-21",
		"HH:mm":           "09:05",
		"dddd, D MMMM YY": "Saturday, 21 November 26",
		"[Week of] MMM D": "Week of Nov 21",
		"h:mm:ss a":       "9:05:03 am",
		"YYYYMMDD[T]HHmm": "20261121T0905",
		"[Quarter] Q!":    "Quarter 4!",
		"[Jan 2] YYYY":    "Jan 2 2026", // a literal is never a Go layout
		"gggg-[W]ww":      "2026-W47",
		"GGGG-[W]WW":      "2026-W47",
		"YYYY-[Q]Q":       "2026-Q4",
		"Do MMM":          "21st Nov",
		"DDDD":            "325",
	} {
		if got := momentFormat(at, format); got != want {
			t.Errorf("%q → %q, want %q", format, got, want)
		}
	}
}

// TestWeeks: week-years and weeks across year ends, by moment's English
// locale (gggg, ww) and ISO 8601 (GGGG, WW), as moment computes them.
func TestWeeks(t *testing.T) {
	for _, c := range []struct{ date, locale, iso string }{
		{"2026-01-01", "2026-01", "2026-01"}, // a Thursday
		{"2025-12-28", "2026-01", "2025-52"}, // Sunday: its week holds 1 January
		{"2027-01-01", "2027-01", "2026-53"}, // a Friday
		{"2026-12-27", "2027-01", "2026-52"},
		{"2021-01-03", "2021-02", "2020-53"}, // a Sunday, the second locale week
		{"2020-12-31", "2021-01", "2020-53"},
		{"2024-12-30", "2025-01", "2025-01"},
	} {
		d, _ := time.Parse(time.DateOnly, c.date)
		if got := momentFormat(d, "gggg-ww"); got != c.locale {
			t.Errorf("%s gggg-ww = %s, want %s", c.date, got, c.locale)
		}
		if got := momentFormat(d, "GGGG-WW"); got != c.iso {
			t.Errorf("%s GGGG-WW = %s, want %s", c.date, got, c.iso)
		}
	}
}

func TestTemplateVariables(t *testing.T) {
	dir := t.TempDir()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	_, err = v.template("Daily", "x", time.Now())
	if e := errors.From(err); e.Kind != errors.FileNotFound || !strings.Contains(e.Message, "no template folder") {
		t.Errorf("without a template folder: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".obsidian", "templates.json"), []byte(`{"folder":"/Tpl/"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "Tpl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Tpl", "Daily.md"), []byte("# {{title}} {{date}} {{ time }} {{date:YYYY}} {{other}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 15, 4, 0, 0, time.Local)
	got, err := v.template("daily", "Plan", at)
	if err != nil || string(got) != "# Plan 2026-01-02 15:04 2026 {{other}}" {
		t.Errorf("template = %q, %v", got, err)
	}
	if _, err := v.template("Weekly", "x", at); errors.From(err).Kind != errors.FileNotFound {
		t.Errorf("missing template: %v", err)
	}
	// The listing: every note of the folder, nested ones by their path in
	// it, with the variables the plugin fills in, once each, as written.
	if err := os.MkdirAll(filepath.Join(dir, "Tpl", "Work"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Tpl", "Work", "Meeting.md"), []byte("{{date:YYYY-MM-DD}} {{title}} {{date:YYYY-MM-DD}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Tpl", "cover.png"), []byte("PNG"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := v.Templates(t.Context())
	want := note.Templates{Folder: "Tpl", Templates: []note.Template{
		{Path: "Tpl/Daily.md", Name: "Daily", Variables: []string{"title", "date", "time", "date:YYYY"}},
		{Path: "Tpl/Work/Meeting.md", Name: "Work/Meeting", Variables: []string{"date:YYYY-MM-DD", "title"}},
	}}
	if err != nil || !reflect.DeepEqual(list, want) {
		t.Errorf("Templates = %+v, %v; want %+v", list, err, want)
	}
}

func TestMoveReportsNotesItCouldNotRewrite(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{"Target.md": "t", "Free.md": "[[Target]]", "Locked.md": "see [[Target]]"} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "Locked.md"), 0o444); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	m, err := v.Rename(context.Background(), note.ByName("Target"), "Goal")
	if err != nil {
		t.Fatal(err)
	}
	if m.Links.Links != 1 || m.Links.Notes != 1 || !slices.Equal(m.Links.Failed, []string{"Locked.md"}) {
		t.Errorf("links = %+v, want 1 rewritten and Locked.md failed", *m.Links)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "Locked.md")); string(got) != "see [[Target]]" {
		t.Errorf("read-only note changed: %q", got)
	}
}

// TestCheckWritableSpacedNames: a folder or file stem with a space at
// either end cannot be linked to (Obsidian trims link text), so it is never
// written. Found by FuzzRetarget (links/testdata/fuzz), where moving A.md to
// " .md" turned [[A]] into [[ ]].
func TestCheckWritableSpacedNames(t *testing.T) {
	for p, bad := range map[string]bool{
		" .md":            true,
		"Note .md":        true,
		" Note.md":        true,
		"Folder /Note.md": true,
		"a/ b/Note.md":    true,
		"Note\t.md":       true,
		"My Note.md":      false,
		"a b/c d.md":      false,
		"Note. md":        false, // the extension is " md": odd, but linkable as [[Note. md]]
	} {
		err := note.ValidateWritable("path", p)
		if got := err != nil; got != bad {
			t.Errorf("note.ValidateWritable(%q) = %v, want refused: %v", p, err, bad)
			continue
		}
		if bad && errors.From(err).Kind != errors.InvalidParams {
			t.Errorf("note.ValidateWritable(%q): kind %s, want INVALID_PARAMS", p, errors.From(err).Kind)
		}
	}
}
