package obsidiancli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

func newBackend(t *testing.T, sc obsidiantest.Scenario) (*Backend, *obsidiantest.Fake) {
	t.Helper()
	f := obsidiantest.Install(t, sc)
	return &Backend{CLI: newClient(f), Logger: discard()}, f
}

// routed is --backend cli as the server wires it: the router over this
// backend, with the folder the app reports, where it reads, edits, and
// writes what the CLI cannot carry. Tests of the whole go through it.
func routed(t *testing.T, sc obsidiantest.Scenario) (tools.Vault, *obsidiantest.Fake) {
	t.Helper()
	f := obsidiantest.Install(t, sc)
	r := &backend.Router{Mode: backend.CLI, Logger: discard()}
	app := &Backend{CLI: newClient(f), Logger: discard(), Policy: r.Policy}
	r.App = backend.AppOf(app)
	t.Cleanup(func() { _ = r.Close() })
	return r.Vault(), f
}

// adversarial is content the CLI cannot carry through argv unchanged.
var adversarial = map[string]string{
	"latex":      `$a \times b$ and \newline \tab \r \\n C:\Users\me`,
	"crlf":       "line one\r\nline two\r\n",
	"emoji":      "😀 café ñ 中文\n\t- tab\n",
	"nul byte":   "before\x00after",
	"100KB":      strings.Repeat("0123456789abcdef\\n\n", 100*1024/18),
	"no newline": "ends without newline",
}

func kindOf(err error) errors.Kind {
	if e := errors.From(err); e != nil {
		return e.Kind
	}
	return ""
}

func noFileLocators(t *testing.T, f *obsidiantest.Fake) {
	t.Helper()
	for _, argv := range f.Calls() {
		for _, a := range argv {
			if strings.HasPrefix(a, "file=") {
				t.Errorf("CLI called with %q: names must be resolved by us and sent as path=", argv)
			}
		}
	}
}

func TestCreateAndReadLossless(t *testing.T) {
	t.Parallel()
	for name, content := range adversarial {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, f := routed(t, obsidiantest.Scenario{})
			got, err := b.Notes.Create(t.Context(), note.CreateRequest{Path: "Notes/" + name, Content: content})
			if err != nil {
				t.Fatal(err)
			}
			if got.Path != "Notes/"+name+".md" || got.Size != len(content) || got.Overwrote {
				t.Errorf("Create = %+v", got)
			}
			if disk, _ := f.Note(got.Path); disk != content {
				t.Errorf("on disk %q…, want %q…", trunc(disk), trunc(content))
			}
			read, err := b.Notes.Read(t.Context(), note.ByPath(got.Path))
			if err != nil || read.Content != content {
				t.Errorf("Read = %q…, %v; want the exact bytes", trunc(read.Content), err)
			}
			// Appending adversarial content keeps every byte as well.
			if _, err := b.Notes.Append(t.Context(), note.ByPath(got.Path), content, false); err != nil {
				t.Fatal(err)
			}
			want := string(note.Append([]byte(content), []byte(content), false))
			if disk, _ := f.Note(got.Path); disk != want {
				t.Errorf("after append %q…, want %q…", trunc(disk), trunc(want))
			}
		})
	}
}

func trunc(s string) string {
	if len(s) > 60 {
		return s[:60]
	}
	return s
}

func TestCreateThroughCLIEscapes(t *testing.T) {
	t.Parallel()
	b, f := newBackend(t, obsidiantest.Scenario{})
	content := "# Title\n\n\tindented\r\nend"
	if _, err := b.Create(t.Context(), note.CreateRequest{Name: "Plan", Folder: "Ideas", Content: content, Open: true}); err != nil {
		t.Fatal(err)
	}
	if disk, _ := f.Note("Ideas/Plan.md"); disk != content {
		t.Errorf("on disk %q, want %q", disk, content)
	}
	calls := f.Calls()
	last := calls[len(calls)-1]
	want := []string{"create", "path=Ideas/Plan.md", `content=# Title\n\n\tindented\r\nend`, "open"}
	if strings.Join(last, "|") != strings.Join(want, "|") {
		t.Errorf("create argv = %q, want %q", last, want)
	}
}

func TestCreateNeverClobbersOrSideCopies(t *testing.T) {
	t.Parallel()
	b, f := newBackend(t, obsidiantest.Scenario{})
	f.WriteNote("Plan.md", "original")
	for _, content := range []string{"short", `with \ backslash`} {
		_, err := b.Create(t.Context(), note.CreateRequest{Path: "Plan.md", Content: content})
		if kindOf(err) != errors.FileExists {
			t.Errorf("create over an existing note: err = %v, want FILE_EXISTS", err)
		}
	}
	if disk, _ := f.Note("Plan.md"); disk != "original" {
		t.Errorf("existing note changed to %q", disk)
	}
	// The race: our check says absent, Obsidian then finds it and would
	// create "Plan 1.md". The side copy must be undone.
	f.Update(func(sc *obsidiantest.Scenario) { sc.Invisible = []string{"Plan.md"} })
	_, err := b.Create(t.Context(), note.CreateRequest{Path: "Plan.md", Content: "racing"})
	if kindOf(err) != errors.FileExists {
		t.Errorf("racing create: err = %v, want FILE_EXISTS", err)
	}
	if _, ok := f.Note("Plan 1.md"); ok {
		t.Error("side copy Plan 1.md left in the vault")
	}
	if disk, _ := f.Note("Plan.md"); disk != "original" {
		t.Errorf("existing note changed to %q", disk)
	}
}

func TestSideCopy(t *testing.T) {
	t.Parallel()
	for got, want := range map[string]bool{
		"Ideas/Plan 1.md": true, "Ideas/Plan 12.md": true, "Ideas/Plan.md": false, "Ideas/Plan copy.md": false,
		"Ideas/Plan 1.canvas": false, "Other/Plan 1.md": false, "Ideas/Plan 1": false, "Ideas/Plan -1.md": false,
	} {
		if sideCopy("Ideas/Plan.md", got) != want {
			t.Errorf("sideCopy(Ideas/Plan.md, %q) = %v, want %v", got, !want, want)
		}
	}
}

func TestCreateOverwrite(t *testing.T) {
	t.Parallel()
	b, f := routed(t, obsidiantest.Scenario{})
	f.WriteNote("Plan.md", "original")
	got, err := b.Notes.Create(t.Context(), note.CreateRequest{Path: "Plan", Content: "new", Overwrite: true})
	if err != nil || !got.Overwrote {
		t.Fatalf("Create = %+v, %v; want overwrote", got, err)
	}
	got, err = b.Notes.Create(t.Context(), note.CreateRequest{Path: "Plan", Content: `new \ direct`, Overwrite: true})
	if err != nil || !got.Overwrote {
		t.Fatalf("direct Create = %+v, %v; want overwrote", got, err)
	}
	if disk, _ := f.Note("Plan.md"); disk != `new \ direct` {
		t.Errorf("on disk %q", disk)
	}
}

func TestCreateTemplate(t *testing.T) {
	t.Parallel()
	b, f := newBackend(t, obsidiantest.Scenario{})
	_, err := b.Create(t.Context(), note.CreateRequest{Path: "a.md", Template: "Daily"})
	if e := errors.From(err); e == nil || e.Kind != errors.CLIError || !strings.Contains(e.Hint, "Templates") {
		t.Errorf("no template folder: err = %v, want CLI_ERROR with a templates hint", err)
	}
	f.WriteNote(".obsidian/templates.json", `{"folder":"Templates"}`)
	f.WriteNote("Templates/Daily.md", "# {{title}}\n")
	if _, err := b.Create(t.Context(), note.CreateRequest{Path: "b.md", Template: "Daily"}); err != nil {
		t.Fatal(err)
	}
	if disk, _ := f.Note("b.md"); disk != "# b\n" {
		t.Errorf("templated note = %q", disk)
	}
	_, err = b.Create(t.Context(), note.CreateRequest{Path: "c.md", Template: "Daily", Content: `\x`})
	if kindOf(err) != errors.Unsupported {
		t.Errorf("template + direct content: err = %v, want UNSUPPORTED", err)
	}
}

func TestReadThroughCLIWhenFolderUnreachable(t *testing.T) {
	t.Parallel()
	b, f := routed(t, obsidiantest.Scenario{ReportedPath: "/nonexistent/vault", Noise: true})
	for _, content := range []string{"no final newline", "final newline\n", "\n\nleading blank lines\n", "Error: a note about errors"} {
		f.WriteNote("n.md", content)
		got, err := b.Notes.Read(t.Context(), note.ByPath("n.md"))
		if err != nil || got.Content != content {
			t.Errorf("Read = %q, %v; want %q", got.Content, err, content)
		}
	}
	_, err := b.Notes.Read(t.Context(), note.ByPath("missing.md"))
	if kindOf(err) != errors.FileNotFound {
		t.Errorf("missing: err = %v, want FILE_NOT_FOUND", err)
	}
	// Content the CLI cannot carry needs the folder: a clear refusal, no write.
	f.WriteNote("n.md", "keep")
	_, err = b.Notes.Append(t.Context(), note.ByPath("n.md"), `a \ b`, false)
	if e := errors.From(err); e == nil || e.Kind != errors.Unsupported || !strings.Contains(e.Message, "/nonexistent/vault") {
		t.Errorf("append needing the folder: err = %v, want UNSUPPORTED naming the folder", err)
	}
	if disk, _ := f.Note("n.md"); disk != "keep" {
		t.Errorf("note changed to %q", disk)
	}
	// An edit goes through the app whole: fine for what argv carries,
	// refused for the rest, and checked against if_match either way.
	up := func(s string) note.Change {
		return func(cur []byte) ([]byte, error) { return append(cur, s...), nil }
	}
	res, err := b.Edit.Edit(t.Context(), note.ByPath("n.md"), note.ETag([]byte("keep")), up(" more"))
	if disk, _ := f.Note("n.md"); err != nil || disk != "keep more" || res.ETag != note.ETag([]byte(disk)) || !res.Changed {
		t.Errorf("edit through the app: %+v, %v; note %q", res, err, disk)
	}
	if _, err := b.Edit.Edit(t.Context(), note.ByPath("n.md"), note.ETag([]byte("keep")), up("!")); kindOf(err) != errors.RevisionConflict {
		t.Errorf("stale if_match: err = %v, want REVISION_CONFLICT", err)
	}
	if _, err := b.Edit.Edit(t.Context(), note.ByPath("n.md"), "", up(`\`)); kindOf(err) != errors.Unsupported {
		t.Errorf("edit with a backslash: err = %v, want UNSUPPORTED", err)
	}
	if disk, _ := f.Note("n.md"); disk != "keep more" {
		t.Errorf("refused edits changed the note to %q", disk)
	}
}

func TestNameResolution(t *testing.T) {
	t.Parallel()
	b, f := newBackend(t, obsidiantest.Scenario{})
	f.WriteNote("Projects/Plan.md", "project plan")
	f.WriteNote("Archive/Plan.md", "old plan")
	f.WriteNote("Inbox.md", "inbox")
	got, err := b.Read(t.Context(), note.ByName("inbox"))
	if err != nil || got.Path != "Inbox.md" || got.Content != "inbox" {
		t.Errorf("Read(name=inbox) = %+v, %v", got, err)
	}
	got, err = b.Read(t.Context(), note.ByName("Projects/Plan"))
	if err != nil || got.Content != "project plan" {
		t.Errorf("Read(name=Projects/Plan) = %+v, %v", got, err)
	}
	for _, op := range []func() error{
		func() error { _, err := b.Read(t.Context(), note.ByName("Plan")); return err },
		func() error { _, err := b.Delete(t.Context(), note.ByName("Plan"), true); return err },
		func() error { _, err := b.Append(t.Context(), note.ByName("Plan"), "x", false); return err },
	} {
		err := op()
		e := errors.From(err)
		if e == nil || e.Kind != errors.AmbiguousName || e.Code() != -32004 || len(e.Candidates) != 2 {
			t.Fatalf("ambiguous name: err = %v, want AMBIGUOUS_NAME with 2 candidates", err)
		}
	}
	for p, want := range map[string]string{"Projects/Plan.md": "project plan", "Archive/Plan.md": "old plan"} {
		if disk, _ := f.Note(p); disk != want {
			t.Errorf("%s changed to %q after ambiguous calls", p, disk)
		}
	}
	noFileLocators(t, f)
}

func TestAppendPrependSameBytesEitherWay(t *testing.T) {
	t.Parallel()
	b, f := routed(t, obsidiantest.Scenario{})
	start := "---\ntags: [x]\n---\n# Body\nlast line"
	for _, inline := range []bool{false, true} {
		for _, content := range []string{"plain", `back\slash`} {
			f.WriteNote("n.md", start)
			if _, err := b.Notes.Prepend(t.Context(), note.ByPath("n.md"), content, inline); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Notes.Append(t.Context(), note.ByPath("n.md"), content, inline); err != nil {
				t.Fatal(err)
			}
			want := note.Append(note.Prepend([]byte(start), []byte(content), inline), []byte(content), inline)
			if disk, _ := f.Note("n.md"); disk != string(want) {
				t.Errorf("inline=%v content=%q: got %q, want %q", inline, content, disk, want)
			}
		}
	}
	_, err := b.Notes.Append(t.Context(), note.ByPath("missing.md"), "x", false)
	if kindOf(err) != errors.FileNotFound {
		t.Errorf("append to missing: %v", err)
	}
	_, err = b.Notes.Append(t.Context(), note.ByPath("missing.md"), `\x`, false)
	if kindOf(err) != errors.FileNotFound {
		t.Errorf("direct append to missing: %v", err)
	}
	if _, ok := f.Note("missing.md"); ok {
		t.Error("append created a missing note")
	}
}

func TestDeleteMoveRenameOpenInfo(t *testing.T) {
	t.Parallel()
	b, f := newBackend(t, obsidiantest.Scenario{})
	ctx := t.Context()
	f.WriteNote("Inbox/Plan.md", "plan")
	f.WriteNote("Archive/Plan.md", "archived")
	f.WriteNote("Other.md", "other")

	if _, err := b.Move(ctx, note.ByPath("Inbox/Plan.md"), "Archive"); kindOf(err) != errors.FileExists {
		t.Errorf("move onto an existing note: %v, want FILE_EXISTS", err)
	}
	moved, err := b.Move(ctx, note.ByPath("Inbox/Plan.md"), "Projects/2026/")
	if err != nil || moved.From != "Inbox/Plan.md" || moved.To != "Projects/2026/Plan.md" {
		t.Fatalf("Move = %+v, %v", moved, err)
	}
	moved, err = b.Move(ctx, note.ByPath("Projects/2026/Plan.md"), "Projects/2026/Plan.md")
	if err != nil || moved.To != moved.From {
		t.Errorf("move in place = %+v, %v; want a no-op success", moved, err)
	}
	if _, err := b.Rename(ctx, note.ByPath("Projects/2026/Plan.md"), "Other"); err != nil {
		t.Fatalf("rename to a name free in that folder: %v", err)
	}
	if _, err := b.Rename(ctx, note.ByPath("Projects/2026/Other.md"), "Plan.md"); err != nil {
		t.Fatal(err)
	}
	f.WriteNote("Projects/2026/Taken.md", "taken")
	if _, err := b.Rename(ctx, note.ByPath("Projects/2026/Plan.md"), "Taken"); kindOf(err) != errors.FileExists {
		t.Errorf("rename onto existing: %v, want FILE_EXISTS", err)
	}
	renamed, err := b.Rename(ctx, note.ByPath("Projects/2026/Plan.md"), "Roadmap")
	if err != nil || renamed.To != "Projects/2026/Roadmap.md" {
		t.Fatalf("Rename = %+v, %v", renamed, err)
	}
	if disk, _ := f.Note("Projects/2026/Roadmap.md"); disk != "plan" {
		t.Errorf("renamed note holds %q", disk)
	}

	info, err := b.FileInfo(ctx, note.ByName("Roadmap"))
	if err != nil || info.Path != "Projects/2026/Roadmap.md" || info.Name != "Roadmap" || info.Extension != "md" || info.Size != 4 {
		t.Errorf("FileInfo = %+v, %v", info, err)
	}
	if info.Modified.Location() != time.UTC || time.Since(info.Modified) > time.Hour {
		t.Errorf("modified = %v, want a recent UTC time", info.Modified)
	}

	if _, err := b.Open(ctx, note.ByPath("Other.md"), true); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	if last := strings.Join(calls[len(calls)-1], " "); last != "open path=Other.md newtab" {
		t.Errorf("open argv = %q", last)
	}
	if _, err := b.Open(ctx, note.ByPath("Nope.md"), false); kindOf(err) != errors.FileNotFound {
		t.Errorf("open missing: %v", err)
	}

	del, err := b.Delete(ctx, note.ByPath("Other.md"), false)
	if err != nil || del.Permanent {
		t.Fatalf("Delete = %+v, %v", del, err)
	}
	if _, err := os.Stat(filepath.Join(f.Vault, ".trash", "Other.md")); err != nil {
		t.Errorf("trashed note not in .trash: %v", err)
	}
	if _, err := b.Delete(ctx, note.ByPath("Archive/Plan.md"), true); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Note("Archive/Plan.md"); ok {
		t.Error("permanently deleted note still there")
	}
	if _, err := b.Delete(ctx, note.ByPath("Archive/Plan.md"), true); kindOf(err) != errors.FileNotFound {
		t.Errorf("second delete: %v, want FILE_NOT_FOUND", err)
	}
	noFileLocators(t, f)
}

func TestReadFolderIsAClearError(t *testing.T) {
	t.Parallel()
	b, f := routed(t, obsidiantest.Scenario{})
	f.WriteNote("Projects/Plan.md", "x")
	_, err := b.Notes.Read(t.Context(), note.ByPath("Projects"))
	if e := errors.From(err); e == nil || e.Kind != errors.FileNotFound || !strings.Contains(e.Message, "Projects is a folder") {
		t.Errorf("reading a folder: %v", err)
	}
}

func TestPermissionDeniedFromCLI(t *testing.T) {
	t.Parallel()
	b, _ := newBackend(t, obsidiantest.Scenario{Canned: &obsidiantest.Canned{Stdout: "Error: EACCES: permission denied, open '/v/a.md'\n"}})
	_, err := b.Delete(t.Context(), note.ByPath("a.md"), false)
	if e := errors.From(err); e == nil || e.Kind != errors.PermissionDenied || e.Code() != -32005 {
		t.Errorf("err = %v, want PERMISSION_DENIED", err)
	}
}

// TestWhatTheCLICannotCarry: the bare CLI backend writes nothing it cannot
// carry losslessly and reaches no daily note but today's; it says so with
// note.ErrNeedsFolder, which the router answers from the vault folder.
func TestWhatTheCLICannotCarry(t *testing.T) {
	t.Parallel()
	b, f := newBackend(t, obsidiantest.Scenario{})
	f.WriteNote("n.md", "keep")
	yesterday := time.Now().AddDate(0, 0, -1)
	for name, call := range map[string]func() error{
		"create": func() error {
			_, err := b.Create(t.Context(), note.CreateRequest{Path: "new.md", Content: `a \ b`})
			return err
		},
		"append": func() error {
			_, err := b.Append(t.Context(), note.ByPath("n.md"), "nul\x00", false)
			return err
		},
		"another day's note": func() error {
			_, err := b.Daily(t.Context(), note.DailyRequest{Date: yesterday, Op: note.DailyRead})
			return err
		},
		"another day's path": func() error {
			_, err := b.DailyPath(t.Context(), yesterday)
			return err
		},
		"this week's note": func() error {
			_, err := b.Daily(t.Context(), note.DailyRequest{Date: time.Now(), Period: note.Week, Op: note.DailyRead})
			return err
		},
	} {
		if err := call(); !errors.Is(err, note.ErrNeedsFolder) || kindOf(err) != errors.Unsupported {
			t.Errorf("%s: err = %v, want UNSUPPORTED wrapping note.ErrNeedsFolder", name, err)
		}
	}
	if _, ok := f.Note("new.md"); ok {
		t.Error("the refused create wrote a note")
	}
	if disk, _ := f.Note("n.md"); disk != "keep" {
		t.Errorf("the refused append changed the note to %q", disk)
	}
}
