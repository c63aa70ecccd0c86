package changes

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// vault is a vault folder with files, and its root.
func vault(t *testing.T, files map[string]string) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = root.Close() })
	return dir, root
}

func open(t *testing.T, base, dir string, root *os.Root, l Limits) *Record {
	t.Helper()
	r, err := Open(base, dir, root, l)
	if err != nil {
		t.Fatal(err)
	}
	// Windows removes no file held open.
	t.Cleanup(r.Close)
	return r
}

// TestChangeRecorded: a change's parts are kept in order with the bytes
// before each (read back whole, compressed or not) and the hash after; a
// change that wrote nothing, or whose writes all failed, leaves nothing.
func TestChangeRecorded(t *testing.T) {
	t.Parallel()
	dir, root := vault(t, nil)
	r := open(t, t.TempDir(), dir, root, DefaultLimits)
	big := bytes.Repeat([]byte("a line that compresses well\n"), 200)
	p := r.Begin("obsidian_rename_note", "claude-ai")
	for _, c := range []struct {
		op, path, to  string
		before, after []byte
	}{
		{note.PartMove, "A.md", "B.md", nil, nil},
		{note.PartEdit, "Links.md", "", big, []byte("[[B]]\n")},
		{note.PartEdit, "Other.md", "", []byte("[[A]]\n"), []byte("[[B]]\n")},
	} {
		part, err := p.Part(c.op, c.path, c.to, c.before, c.after)
		if err != nil {
			t.Fatal(err)
		}
		part.Landed("")
	}
	failed, _ := p.Part(note.PartEdit, "Third.md", "", []byte("x"), []byte("y"))
	failed.Failed()
	got := p.End()
	if got.ID == "" || len(got.Parts) != 3 || got.Parts[0].Op != note.PartMove || got.Parts[0].To != "B.md" || got.Parts[1].After != Hash([]byte("[[B]]\n")) {
		t.Fatalf("kept %+v", got)
	}
	for i, want := range [][]byte{nil, big, []byte("[[A]]\n")} {
		if want == nil {
			continue
		}
		data, err := r.Blob(got.Parts[i].Before)
		if err != nil || !bytes.Equal(data, want) {
			t.Errorf("part %d's bytes before: %q, %v", i, data, err)
		}
	}
	// The bytes after are kept too, once.
	if data, err := r.Blob(got.Parts[2].After); err != nil || string(data) != "[[B]]\n" {
		t.Errorf("the bytes after: %q, %v", data, err)
	}
	list, err := r.List(Filter{})
	if err != nil || len(list.Changes) != 1 || list.Changes[0].ID != got.ID || list.Changes[0].Client != "claude-ai" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if c, err := r.Get(got.ID, nil); err != nil || len(c.Parts) != 3 {
		t.Errorf("get: %+v %v", c, err)
	}

	none := r.Begin("obsidian_append_to_note", "x")
	part, _ := none.Part(note.PartEdit, "A.md", "", []byte("a"), []byte("ab"))
	part.Failed()
	if c := none.End(); c.ID != "" {
		t.Errorf("a change whose one write failed was kept: %+v", c)
	}
	if c := r.Begin("obsidian_read_note", "x").End(); c.ID != "" {
		t.Errorf("a change that wrote nothing was kept: %+v", c)
	}
	if list, _ := r.List(Filter{}); len(list.Changes) != 1 {
		t.Errorf("%d changes listed, want 1", len(list.Changes))
	}
}

// TestSettledAfterACrash: a process that died between a part's record and
// its write leaves the part pending; the next Open keeps the parts whose
// writes landed (the file changed, gone, moved) and drops the others.
func TestSettledAfterACrash(t *testing.T) {
	t.Parallel()
	dir, root := vault(t, map[string]string{"Landed.md": "new", "NotLanded.md": "old", "Moved.md": "m", "Gone.md": "g"})
	base := t.TempDir()
	r := open(t, base, dir, root, DefaultLimits)
	p := r.Begin("obsidian_patch_note", "")
	for _, c := range []struct{ op, path, to, before string }{
		{note.PartEdit, "Landed.md", "", "old"},
		{note.PartEdit, "NotLanded.md", "", "old"},
		{note.PartMove, "Moved.md", "Far.md", ""},
		{note.PartDelete, "Deleted.md", "", "d"},
		{note.PartDelete, "Gone.md", "", "g"},
	} {
		var before []byte
		if c.before != "" {
			before = []byte(c.before)
		}
		if _, err := p.Part(c.op, c.path, c.to, before, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The process dies here: no Landed, no End; the system lets its
	// lock go.
	if list, _ := r.List(Filter{}); len(list.Changes) != 0 {
		t.Errorf("a change being made is listed: %+v", list.Changes)
	}
	alive := open(t, base, dir, root, DefaultLimits)
	if list, _ := alive.List(Filter{}); len(list.Changes) != 0 {
		t.Errorf("a change its live process is making was settled by another: %+v", list.Changes)
	}
	r.Close()
	again := open(t, base, dir, root, DefaultLimits)
	list, err := again.List(Filter{})
	if err != nil || len(list.Changes) != 1 {
		t.Fatalf("after the restart: %+v %v", list, err)
	}
	var got []string
	for _, part := range list.Changes[0].Parts {
		got = append(got, part.Op+" "+part.Path)
	}
	if strings.Join(got, ", ") != "edit Landed.md, delete Deleted.md" {
		t.Errorf("settled parts: %q, want the edit that landed and the delete whose file is gone", got)
	}
}

// TestLimits: with a small size bound the record stays within it, the
// oldest changes going first; changes past MaxAge are forgotten; the
// bytes they alone named go with them.
func TestLimits(t *testing.T) {
	t.Parallel()
	dir, root := vault(t, nil)
	base := t.TempDir()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := open(t, base, dir, root, Limits{MaxBytes: 64 << 10, MaxAge: 10 * 24 * time.Hour})
	r.now = func() time.Time { return now }
	var made []string
	for i := range 40 {
		now = now.Add(time.Hour)
		p := r.Begin("obsidian_append_to_note", "")
		before := make([]byte, 8<<10) // 8 KB that do not compress
		_, _ = rand.Read(before)
		part, err := p.Part(note.PartEdit, "N.md", "", before, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		part.Landed("")
		made = append(made, p.End().ID)
		if size := recordSize(t, r.Dir()); size > 64<<10+8<<10 {
			t.Fatalf("after %d changes the record holds %d bytes, over its bound", i+1, size)
		}
	}
	list, _ := r.List(Filter{Limit: 100})
	if len(list.Changes) == 0 || len(list.Changes) == 40 || list.Changes[0].ID != made[39] {
		t.Fatalf("%d changes kept, want some but not all 40", len(list.Changes))
	}
	oldest := list.Changes[len(list.Changes)-1].ID
	if oldest != made[40-len(list.Changes)] {
		t.Errorf("the oldest kept is %s, want the newest %d in a row", oldest, len(list.Changes))
	}
	// Eleven days later, every change is past MaxAge.
	now = now.Add(11 * 24 * time.Hour)
	p := r.Begin("obsidian_create_note", "")
	part, _ := p.Part(note.PartCreate, "New.md", "", nil, []byte("n"))
	part.Landed("")
	p.End()
	if list, _ := r.List(Filter{Limit: 100}); len(list.Changes) != 1 {
		t.Errorf("%d changes after MaxAge, want the new one alone", len(list.Changes))
	}
}

func recordSize(t *testing.T, dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// TestFilters: by note, folder, tool, client and time, and pages.
func TestFilters(t *testing.T) {
	t.Parallel()
	dir, root := vault(t, nil)
	r := open(t, t.TempDir(), dir, root, DefaultLimits)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { now = now.Add(time.Minute); return now }
	for _, c := range []struct{ tool, client, path, to string }{
		{"obsidian_create_note", "claude", "Inbox/A.md", ""},
		{"obsidian_move_note", "cursor", "Inbox/A.md", "Projects/A.md"},
		{"obsidian_append_to_note", "claude", "Projects/B.md", ""},
	} {
		p := r.Begin(c.tool, c.client)
		op := note.PartEdit
		if c.to != "" {
			op = note.PartMove
		}
		part, _ := p.Part(op, c.path, c.to, []byte("x"), nil)
		part.Landed("")
		p.End()
	}
	count := func(f Filter) int {
		l, err := r.List(f)
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Changes)
	}
	for _, c := range []struct {
		name string
		f    Filter
		want int
	}{
		{"all", Filter{}, 3},
		{"a note", Filter{Path: "inbox/a.md"}, 2},
		{"a move's destination", Filter{Path: "Projects/A.md"}, 1},
		{"a folder", Filter{Folder: "Projects/"}, 2},
		{"a tool", Filter{Tool: "obsidian_create_note"}, 1},
		{"a client", Filter{Client: "Claude"}, 2},
		{"since", Filter{Since: time.Date(2026, 11, 1, 12, 2, 0, 0, time.UTC)}, 2},
		{"until", Filter{Until: time.Date(2026, 11, 1, 12, 1, 0, 0, time.UTC)}, 1},
	} {
		if got := count(c.f); got != c.want {
			t.Errorf("%s: %d changes, want %d", c.name, got, c.want)
		}
	}
	first, _ := r.List(Filter{Limit: 2})
	if len(first.Changes) != 2 || first.More == "" {
		t.Fatalf("first page: %+v", first)
	}
	rest, _ := r.List(Filter{Limit: 2, Before: first.More})
	if len(rest.Changes) != 1 || rest.Changes[0].Tool != "obsidian_create_note" || rest.More != "" {
		t.Errorf("second page: %+v", rest)
	}
}

// TestDamagedAndHostile: a damaged entry is skipped and counted, the rest
// still listed; an unknown or malformed id is a clear error; a record
// folder that is a symlink is refused, as is one of its folders.
func TestDamagedAndHostile(t *testing.T) {
	t.Parallel()
	dir, root := vault(t, nil)
	base := t.TempDir()
	r := open(t, base, dir, root, DefaultLimits)
	p := r.Begin("obsidian_create_note", "")
	part, _ := p.Part(note.PartCreate, "A.md", "", nil, []byte("a"))
	part.Landed("")
	good := p.End().ID
	// A line of the log damaged (by hand, or a disk's fault), and one
	// cut off by a crash mid-write.
	bad := newID(time.Now().Add(time.Second))
	if err := os.WriteFile(filepath.Join(r.Dir(), logDir, bad+".log"), []byte("{not json\n{\"t\":\"change\",\"cha"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := r.List(Filter{})
	if err != nil || len(list.Changes) != 1 || list.Changes[0].ID != good || list.Damaged != 1 {
		t.Errorf("with a damaged entry: %+v %v", list, err)
	}
	for _, id := range []string{"../../etc/passwd", "20261128T175400.123456Z-zzzzzz", ""} {
		if _, err := r.Get(id, nil); err == nil || !strings.Contains(err.Error(), "no change id") {
			t.Errorf("get %q: %v, want it refused as no change id", id, err)
		}
	}
	if _, err := r.Get(newID(time.Now()), nil); err == nil || !strings.Contains(err.Error(), "no such change") {
		t.Errorf("an id the record does not have: %v", err)
	}
	if _, err := r.Blob("../x"); err == nil {
		t.Error("a blob named by a path was read")
	}

	// A record folder that is a symlink out of the state folder. Under
	// Wine a folder link made by os.Symlink dangles (its Lstat finds no
	// file), so this part runs where links are the system's own.
	if runtime.GOOS == "windows" {
		return
	}
	linked := t.TempDir()
	outside := filepath.Join(linked, "outside")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	other, otherRoot := vault(t, nil)
	probe, err := Open(linked, other, otherRoot, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	probe.Close()
	if err := os.RemoveAll(probe.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("outside", probe.Dir()); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if r, err := Open(linked, other, otherRoot, DefaultLimits); err == nil {
		r.Close()
		t.Error("a record folder that is a symlink was opened")
	}
	// One of its folders a symlink.
	sub := t.TempDir()
	third, thirdRoot := vault(t, nil)
	rec := open(t, sub, third, thirdRoot, DefaultLimits)
	if err := os.Mkdir(filepath.Join(sub, "elsewhere"), 0o700); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if err := os.RemoveAll(filepath.Join(rec.Dir(), logDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "elsewhere"), filepath.Join(rec.Dir(), logDir)); err != nil {
		t.Fatal(err)
	}
	if r, err := Open(sub, third, thirdRoot, DefaultLimits); err == nil {
		r.Close()
		t.Error("a record whose log folder is a symlink was opened")
	}
	for _, d := range []string{outside, filepath.Join(sub, "elsewhere")} {
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Errorf("the symlink's target %s was written: %v", d, entries)
		}
	}
}

// TestOwnerOnly: the record's folders are 0700 and its files 0600.
func TestOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps access in ACLs, not mode bits")
	}
	t.Parallel()
	dir, root := vault(t, nil)
	r := open(t, t.TempDir(), dir, root, DefaultLimits)
	p := r.Begin("obsidian_create_note", "")
	part, _ := p.Part(note.PartEdit, "A.md", "", []byte("before"), []byte("after"))
	part.Landed("")
	p.End()
	_ = filepath.WalkDir(r.Dir(), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
}
