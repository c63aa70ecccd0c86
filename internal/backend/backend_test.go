package backend

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

func TestMain(m *testing.M) { obsidiantest.Main(m) }

func setup(t *testing.T, mode Mode, sc obsidiantest.Scenario, givePath bool) (*Router, *obsidiantest.Fake, *obsidiantest.Buffer) {
	t.Helper()
	f := obsidiantest.Install(t, sc)
	f.WriteNote("Note.md", "hello")
	logs := &obsidiantest.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	app := &obsidiancli.Backend{CLI: &obsidiancli.Client{Bin: f.Bin, Timeout: 10 * time.Second, Logger: logger}, Logger: logger}
	r := &Router{Mode: mode, App: AppOf(app), Logger: logger}
	app.Policy = r.Policy
	t.Cleanup(func() { _ = r.Close() })
	if givePath {
		// As the server does: one engine for both backends.
		v, err := native.Open(f.Vault)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		r.Folder = v
	}
	return r, f, logs
}

func servedBy(logs *obsidiantest.Buffer) []string {
	var out []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "call served") {
			_, b, _ := strings.Cut(line, "backend=")
			out = append(out, strings.Fields(b)[0])
		}
	}
	return out
}

func TestAutoUsesTheAppWhileItAnswers(t *testing.T) {
	r, f, logs := setup(t, Auto, obsidiantest.Scenario{}, true)
	if _, err := r.Vault().Notes.FileInfo(t.Context(), note.ByPath("Note.md")); err != nil {
		t.Fatal(err)
	}
	if got := servedBy(logs); len(got) != 1 || got[0] != "cli" {
		t.Errorf("served by %q, want cli", got)
	}
	if len(f.Calls()) == 0 {
		t.Error("the CLI was never run")
	}
}

func TestAutoFallsBackToTheGivenFolder(t *testing.T) {
	r, f, logs := setup(t, Auto, obsidiantest.Scenario{NotRunning: true}, true)
	got, err := r.Vault().Notes.Append(t.Context(), note.ByName("note"), "world", false)
	if err != nil || got.Path != "Note.md" {
		t.Fatalf("Append = %+v, %v", got, err)
	}
	if content, _ := f.Note("Note.md"); content != "hello\n\nworld" {
		t.Errorf("note = %q", content)
	}
	if by := servedBy(logs); len(by) != 1 || by[0] != "native" {
		t.Errorf("served by %q, want native", by)
	}
	if !strings.Contains(logs.String(), "serving calls from the vault folder") {
		t.Error("the switch to the folder was not logged")
	}
}

func TestAutoRetriesTheAppAfterRecheck(t *testing.T) {
	r, f, logs := setup(t, Auto, obsidiantest.Scenario{NotRunning: true}, true)
	r.Recheck = time.Hour
	for range 3 {
		if _, err := r.Vault().Notes.FileInfo(t.Context(), note.ByPath("Note.md")); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.Calls()); n != 1 {
		t.Errorf("the app was asked %d times while known to be down, want 1", n)
	}
	// The app comes back: after the recheck period it serves again.
	f.Update(func(sc *obsidiantest.Scenario) { sc.NotRunning = false })
	r.mu.Lock()
	r.downUntil = time.Now().Add(-time.Second)
	r.mu.Unlock()
	if _, err := r.Vault().Notes.FileInfo(t.Context(), note.ByPath("Note.md")); err != nil {
		t.Fatal(err)
	}
	if by := servedBy(logs); len(by) != 4 || by[3] != "cli" {
		t.Errorf("served by %q, want native ×3 then cli", by)
	}
}

func TestAutoFallsBackToTheFolderLearnedFromTheApp(t *testing.T) {
	r, f, logs := setup(t, Auto, obsidiantest.Scenario{}, false)
	if _, err := r.Vault().Notes.FileInfo(t.Context(), note.ByPath("Note.md")); err != nil {
		t.Fatal(err)
	}
	f.Update(func(sc *obsidiantest.Scenario) { sc.NotRunning = true })
	got, err := r.Vault().Notes.FileInfo(t.Context(), note.ByName("Note"))
	if err != nil || got.Size != 5 {
		t.Fatalf("FileInfo after the app closed = %+v, %v", got, err)
	}
	if by := servedBy(logs); len(by) != 2 || by[1] != "native" {
		t.Errorf("served by %q, want cli then native", by)
	}
}

func TestAutoWithNeitherNamesBothWaysOut(t *testing.T) {
	for name, sc := range map[string]obsidiantest.Scenario{
		"not running":   {NotRunning: true},
		"not installed": {},
	} {
		t.Run(name, func(t *testing.T) {
			r, f, _ := setup(t, Auto, sc, false)
			if name == "not installed" {
				r.App.Paths.(*obsidiancli.Backend).CLI.Bin = filepath.Join(t.TempDir(), "obsidian")
			}
			_, err := r.Vault().Notes.Read(t.Context(), note.ByPath("Note.md"))
			e := errors.From(err)
			if err == nil || e.Code() != -32001 {
				t.Fatalf("err = %v, want -32001", err)
			}
			if !strings.Contains(e.Hint, "--vault-path") || !(strings.Contains(e.Hint, "Start Obsidian") || strings.Contains(e.Hint, "--obsidian-bin")) {
				t.Errorf("hint %q does not name both ways out", e.Hint)
			}
			// The app is asked once (where is the folder?), not once more
			// for the read that could only fail the same way.
			if n := len(f.Calls()); n > 1 {
				t.Errorf("the CLI ran %d times for one read, want at most 1: %q", n, f.Calls())
			}
		})
	}
}

func TestOpenNeverFallsBack(t *testing.T) {
	r, _, logs := setup(t, Auto, obsidiantest.Scenario{NotRunning: true}, true)
	_, err := r.Vault().Notes.Open(t.Context(), note.ByPath("Note.md"), false)
	if e := errors.From(err); e.Kind != errors.NotRunning || !strings.Contains(e.Hint, "Start Obsidian") {
		t.Errorf("open with the app closed: %v (hint %q)", err, e.Hint)
	}
	if by := servedBy(logs); len(by) != 0 {
		t.Errorf("open was served by %q", by)
	}
}

func TestCLIModeNeverFallsBack(t *testing.T) {
	r, _, _ := setup(t, CLI, obsidiantest.Scenario{NotRunning: true}, true)
	_, err := r.Vault().Notes.FileInfo(t.Context(), note.ByPath("Note.md"))
	if e := errors.From(err); e.Kind != errors.NotRunning || strings.Contains(e.Hint, "--vault-path") {
		t.Errorf("cli mode: %v (hint %q)", err, e.Hint)
	}
}

func TestNativeModeNeverRunsTheCLI(t *testing.T) {
	r, f, logs := setup(t, Native, obsidiantest.Scenario{}, true)
	r.App = nil
	if _, err := r.Vault().Notes.Create(context.Background(), note.CreateRequest{Path: "New.md", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("native mode ran the CLI: %q", calls)
	}
	if _, err := os.Stat(filepath.Join(f.Vault, "New.md")); err != nil {
		t.Error(err)
	}
	if by := servedBy(logs); len(by) != 1 || by[0] != "native" {
		t.Errorf("served by %q", by)
	}
	_, err := r.Vault().Notes.Open(t.Context(), note.ByPath("New.md"), false)
	if e := errors.From(err); e.Kind != errors.Unsupported || !strings.Contains(e.Message, "needs the Obsidian app") {
		t.Errorf("native open: %v", err)
	}
}

func TestTimeoutIsNotAFallback(t *testing.T) {
	// A call that timed out may have run: serving it again from the folder
	// could apply it twice.
	r, f, _ := setup(t, Auto, obsidiantest.Scenario{Hang: []string{"append"}}, true)
	r.App.Paths.(*obsidiancli.Backend).CLI.Timeout = 300 * time.Millisecond
	_, err := r.Vault().Notes.Append(t.Context(), note.ByPath("Note.md"), "x", false)
	if kind := errors.From(err).Kind; kind != errors.Timeout {
		t.Fatalf("err = %v, want TIMEOUT", err)
	}
	if content, _ := f.Note("Note.md"); content != "hello" {
		t.Errorf("note = %q: the folder served a call the app may have run", content)
	}
}

// TestTheRouterAloneUsesTheFolder: in CLI mode, the folder the app reports
// serves the reads (exact bytes, no CLI read) and the writes the CLI cannot
// carry; what the CLI can carry still goes through the app.
func TestTheRouterAloneUsesTheFolder(t *testing.T) {
	r, f, logs := setup(t, CLI, obsidiantest.Scenario{}, false)
	c, err := r.Vault().Notes.Read(t.Context(), note.ByPath("Note.md"))
	if err != nil || c.Content != "hello" {
		t.Fatalf("read: %+v, %v", c, err)
	}
	if _, err := r.Vault().Notes.Append(t.Context(), note.ByPath("Note.md"), " plain", true); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Vault().Notes.Append(t.Context(), note.ByPath("Note.md"), ` back\slash`, true); err != nil {
		t.Fatal(err)
	}
	if disk, _ := f.Note("Note.md"); disk != `hello plain back\slash` {
		t.Errorf("note %q", disk)
	}
	var commands []string
	for _, argv := range f.Calls() {
		commands = append(commands, argv[0])
	}
	if got := strings.Join(commands, " "); strings.Contains(got, "read") || strings.Count(got, "append") != 1 || !strings.Contains(got, "vault") {
		t.Errorf("CLI commands %q: want the vault's path asked, one append, no read", got)
	}
	if got := strings.Join(servedBy(logs), " "); got != "native cli native" {
		t.Errorf("served by %q, want the folder, the app, the folder", got)
	}
}

// TestEachBackendHasWhatIsRoutedToIt: the router reaches each backend
// through tools.VaultOf, which leaves nil what a backend does not
// implement; a method whose signature drifted would leave a capability
// nil and fail at the first call. The app has every routed capability and
// the commands; the folder every routed one, tasks, templates and the
// journaled tag rename; the router's Vault has them all.
func TestEachBackendHasWhatIsRoutedToIt(t *testing.T) {
	shared := func(v tools.Vault) map[string]bool {
		return map[string]bool{"notes": v.Notes != nil, "search": v.Search != nil, "files": v.Files != nil, "graph": v.Graph != nil,
			"meta": v.Meta != nil, "edit": v.Edit != nil, "daily": v.Daily != nil, "bases": v.Bases != nil}
	}
	app := AppOf(&obsidiancli.Backend{})
	for name, ok := range shared(app.Vault) {
		if !ok {
			t.Errorf("the app has no %s", name)
		}
	}
	if app.Commands == nil {
		t.Error("the app has no commands")
	}
	v, err := native.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	folder := tools.VaultOf(v)
	for name, ok := range shared(folder) {
		if !ok {
			t.Errorf("the folder has no %s", name)
		}
	}
	if folder.Tasks == nil || folder.Templates == nil || folder.Tags == nil {
		t.Errorf("the folder lacks tasks (%v), templates (%v) or the tag rename (%v)", folder.Tasks != nil, folder.Templates != nil, folder.Tags != nil)
	}
	routed := (&Router{Mode: Auto, Folder: v, App: app}).Vault()
	for name, ok := range shared(routed) {
		if !ok {
			t.Errorf("the router serves no %s", name)
		}
	}
	if routed.Tasks == nil || routed.Templates == nil || routed.Tags == nil || routed.Commands == nil {
		t.Error("the router lacks a capability one backend alone has")
	}
}

// TestOneBackendAloneSaysWhatItNeeds: tasks without a vault folder, and
// commands on the folder alone, are refused saying what is needed.
func TestOneBackendAloneSaysWhatItNeeds(t *testing.T) {
	r, _, _ := setup(t, CLI, obsidiantest.Scenario{ReportedPath: filepath.Join(t.TempDir(), "elsewhere")}, false)
	_, err := r.Vault().Tasks.Tasks(t.Context(), tasks.Query{})
	if e := errors.From(err); err == nil || e.Kind != errors.Unsupported || !strings.Contains(e.Message, "needs the vault folder") || !errors.Is(err, note.ErrNeedsFolder) {
		t.Errorf("tasks with no folder: %v", err)
	}
	n, _, _ := setup(t, Native, obsidiantest.Scenario{}, true)
	_, err = n.Vault().Commands.Commands(t.Context(), "")
	if e := errors.From(err); err == nil || e.Kind != errors.Unsupported || !strings.Contains(e.Message, "needs the Obsidian app") {
		t.Errorf("commands on the folder alone: %v", err)
	}
}
