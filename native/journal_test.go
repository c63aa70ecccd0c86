package native

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// writeVault writes files (vault path → content) into a new folder.
func writeVault(t *testing.T, files map[string]string) string {
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
	return dir
}

// leaveJournal writes a journal entry as a process that died mid-way
// would have left it, with its log lines.
func leaveJournal(t *testing.T, dir string, in intent, log string) {
	t.Helper()
	writeEntry(t, dir, "x", in, log)
}

func readNote(t *testing.T, dir, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func recoverVault(t *testing.T, dir string) Recovered {
	t.Helper()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	r, err := v.Recover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(journalDir))); err == nil && len(r.LeftAlone) == 0 {
		t.Error("the journal is still there after recovery")
	}
	return r
}

// TestRecoverCompletesAMove: a rename killed after the note moved and
// half of its backlinks were rewritten is completed by the next start.
func TestRecoverCompletesAMove(t *testing.T) {
	t.Parallel()
	files := map[string]string{"Center.md": "# hub\n"}
	for i := range 10 {
		link := "[[Hub]]"
		if i < 5 {
			link = "[[Center]]" // rewritten before the crash
		}
		files[fmt.Sprintf("N/n%d.md", i)] = "see " + link + " and [[Hub#Part|p]]\n"
	}
	files["N/n0.md"] = "see [[Center]] and [[Center#Part|p]]\n"
	dir := writeVault(t, files)
	leaveJournal(t, dir, intent{Op: opMove, Moves: map[string]string{"Hub.md": "Center.md"}}, "")
	r := recoverVault(t, dir)
	if len(r.Completed) != 1 || !strings.Contains(r.Completed[0], "completed the move") {
		t.Fatalf("recovered %+v", r)
	}
	for i := range 10 {
		if got := readNote(t, dir, fmt.Sprintf("N/n%d.md", i)); got != "see [[Center]] and [[Center#Part|p]]\n" {
			t.Errorf("n%d = %q", i, got)
		}
	}
}

// TestRecoverRollsBackAMoveNotStarted: killed after the journal was
// written but before the note moved: nothing to do but say so.
func TestRecoverRollsBackAMoveNotStarted(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"Hub.md": "# hub\n", "A.md": "[[Hub]]\n"})
	leaveJournal(t, dir, intent{Op: opMove, Moves: map[string]string{"Hub.md": "Center.md"}}, "")
	r := recoverVault(t, dir)
	if len(r.RolledBack) != 1 || len(r.Completed) != 0 {
		t.Fatalf("recovered %+v", r)
	}
	if got := readNote(t, dir, "A.md"); got != "[[Hub]]\n" {
		t.Errorf("A.md = %q", got)
	}
}

// TestRecoverCompletesATagRename: a rename of proj to proj/sub killed
// part way. The notes the log shows done are not renamed again (that would
// make proj/sub/sub); a note changed by another program since it was
// written is left, and named; the rest are renamed.
func TestRecoverCompletesATagRename(t *testing.T) {
	t.Parallel()
	done := "---\ntags: [proj/sub]\n---\n#proj/sub\n"
	before := "---\ntags: [proj]\n---\n#proj\n"
	dir := writeVault(t, map[string]string{
		"a.md": done,                        // done, as the log says
		"b.md": before,                      // not reached
		"c.md": done + "edited after us\n",  // done, then edited by someone else
		"d.md": before,                      // in the log, crash before its swap
		"e.md": "---\ntags: [other]\n---\n", // tagged no longer
	})
	log := fmt.Sprintf("%s %s a.md\n%s %s c.md\n%s %s d.md\n",
		note.ETag([]byte(before)), note.ETag([]byte(done)),
		note.ETag([]byte(before)), note.ETag([]byte(done)),
		note.ETag([]byte(before)), note.ETag([]byte(done)))
	leaveJournal(t, dir, intent{Op: opRenameTag, From: "proj", To: "proj/sub", Paths: []string{"a.md", "b.md", "c.md", "d.md", "e.md"}}, log)
	r := recoverVault(t, dir)
	if len(r.Completed) != 1 || !strings.Contains(r.Completed[0], "in 2 notes") || !strings.Contains(r.Completed[0], "[c.md]") {
		t.Fatalf("recovered %+v", r)
	}
	for p, want := range map[string]string{"a.md": done, "b.md": done, "c.md": done + "edited after us\n", "d.md": done} {
		if got := readNote(t, dir, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
}

// TestRecoverCompletesAHeadingRename: a heading's rename killed after its
// note and one linking note were written: recovery rewrites the links of
// the notes not reached, and not those done (the log says), and a second
// recovery would change nothing.
func TestRecoverCompletesAHeadingRename(t *testing.T) {
	t.Parallel()
	planBefore, planAfter := "# Plan\n## Risks\nsee [[#Risks]]\n", "# Plan\n## Dangers\nsee [[#Dangers]]\n"
	aBefore, aAfter := "[[Plan#Risks|the risks]]\n", "[[Plan#Dangers|the risks]]\n"
	dir := writeVault(t, map[string]string{
		"Plan.md": planAfter,                              // done, as the log says
		"A.md":    aAfter,                                 // done
		"B.md":    "![[Plan#Risks]] [x](Plan.md#Risks)\n", // not reached
		"C.md":    "[[Plan#Plan#Risks]]\n",                // not reached
	})
	log := fmt.Sprintf("%s %s Plan.md\n%s %s A.md\n", note.ETag([]byte(planBefore)), note.ETag([]byte(planAfter)), note.ETag([]byte(aBefore)), note.ETag([]byte(aAfter)))
	plan := note.HeadingPlan{Target: "Plan.md", Outline: []note.OutlineEntry{{Level: 1, Text: "Plan"}, {Level: 2, Text: "Risks"}}, Index: 1, To: "Dangers", Paths: []string{"A.md", "B.md", "C.md"}}
	leaveJournal(t, dir, intent{Op: opRenameHeading, Heading: &plan}, log)
	r := recoverVault(t, dir)
	if len(r.Completed) != 1 || !strings.Contains(r.Completed[0], `rename of heading "Risks" to "Dangers" in Plan.md`) || !strings.Contains(r.Completed[0], "3 links in 2 notes") {
		t.Fatalf("recovered %+v", r)
	}
	for p, want := range map[string]string{"Plan.md": planAfter, "A.md": aAfter, "B.md": "![[Plan#Dangers]] [x](Plan.md#Dangers)\n", "C.md": "[[Plan#Plan#Dangers]]\n"} {
		if got := readNote(t, dir, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	// An entry that names no heading is not replayed.
	bad := plan
	bad.Index = 7
	if why := checkIntent(intent{Op: opRenameHeading, Heading: &bad}); why == "" {
		t.Error("an entry naming heading 7 of 2 was taken")
	}
}

// TestRecoverLeavesAnotherMachinesEntry: a journal entry a sync client
// copied from another machine is not acted on here.
func TestRecoverLeavesAnotherMachinesEntry(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"Center.md": "x", "A.md": "[[Hub]]\n"})
	leaveJournal(t, dir, intent{Op: opMove, Host: "elsewhere.example", Moves: map[string]string{"Hub.md": "Center.md"}}, "")
	r := recoverVault(t, dir)
	if len(r.LeftAlone) != 1 || !strings.Contains(r.LeftAlone[0], "elsewhere.example") {
		t.Fatalf("recovered %+v", r)
	}
	if got := readNote(t, dir, "A.md"); got != "[[Hub]]\n" {
		t.Errorf("A.md = %q", got)
	}
}

// TestRecoverRemovesTemporaryFiles: what a killed write left beside its
// note goes at the first write; files that only look alike stay.
func TestRecoverRemovesTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{
		"N.md":                       "n",
		".N.md.tmp-ABCDEFGHIJK2":     "partial",
		"Sub/.X.md.tmp-ZZZZZZZZZZZZ": "partial",
		"Sub/.X.md.tmp-notours":      "keep",
		"Sub/.sync.swp":              "keep",
		StateDir + "/lock":           "", // a server has written here
	})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// Start-up leaves them (it costs one stat); the first write sweeps.
	if r, err := v.Recover(t.Context()); err != nil || r.Temps != 0 {
		t.Fatalf("recovered at start: %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".N.md.tmp-ABCDEFGHIJK2")); err != nil {
		t.Fatalf("start-up removed a temporary file: %v", err)
	}
	if _, err := v.Append(t.Context(), note.ByPath("N.md"), "x", false); err != nil {
		t.Fatal(err)
	}

	for p, want := range map[string]bool{".N.md.tmp-ABCDEFGHIJK2": false, "Sub/.X.md.tmp-ZZZZZZZZZZZZ": false, "Sub/.X.md.tmp-notours": true, "Sub/.sync.swp": true} {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", p, err == nil, want)
		}
	}
}

// stopAfter is a context whose Err reports cancellation from its n-th
// call on: a call cancelled part way through a vault-wide edit.
type stopAfter struct {
	context.Context
	n *int
}

func (c stopAfter) Err() error {
	*c.n--
	if *c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestRenameTagCancelledSaysWhatItDid: cancelled after two notes, the
// rename answers what it did with the error, leaves the rest as they
// were, and leaves no journal entry to be "completed" at the next start.
func TestRenameTagCancelledSaysWhatItDid(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	var paths []string
	for i := range 5 {
		p := fmt.Sprintf("n%d.md", i)
		files[p] = "#proj\n"
		paths = append(paths, p)
	}
	dir := writeVault(t, files)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	n := 2
	res, err := v.RenameTag(stopAfter{context.Background(), &n}, "proj", "project", paths)
	if err != context.Canceled || res.Notes != 2 || len(res.Paths) != 2 {
		t.Fatalf("got %+v, %v", res, err)
	}
	for i, p := range paths {
		want := "#proj\n"
		if i < 2 {
			want = "#project\n"
		}
		if got := readNote(t, dir, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if v.journalPending() {
		t.Error("a cancelled rename left its journal entry")
	}
}

// TestRecoverOnAVaultNeverWritten: starting on a vault no server has
// written to makes no folder in it, and touches nothing.
func TestRecoverOnAVaultNeverWritten(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"N.md": "n", ".N.md.tmp-ABCDEFGHIJK2": "left by another version"})
	r := recoverVault(t, dir)
	if r.Temps != 0 {
		t.Errorf("recovered %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, StateDir)); err == nil {
		t.Error("recovery made the state folder")
	}
}

// TestRecoverReplaysOnlyWhatAnEditOfOursWouldDo: entries that a sync
// client copied or someone planted in the vault are left alone, whatever
// they say: unsigned, signed with another key, naming a tag with a line
// break (which would inject a heading), a hidden path, or a path the
// vault's policy keeps from the server; none changes a note.
func TestRecoverReplaysOnlyWhatAnEditOfOursWouldDo(t *testing.T) {
	t.Parallel()
	before := "---\ntags: [proj]\n---\n#proj and [[Ghost]]\n"
	for _, tc := range []struct {
		name string
		in   intent
		why  string
	}{
		{"unsigned", intent{Op: opRenameTag, From: "proj", To: "done", Paths: []string{"a.md"}, MAC: "unsigned"}, "not signed"},
		{"another key", intent{Op: opRenameTag, From: "proj", To: "done", Paths: []string{"a.md"}, MAC: "another key"}, "not signed"},
		{"unsigned move", intent{Op: opMove, Moves: map[string]string{"Ghost.md": "b.md"}, MAC: "unsigned"}, "not signed"},
		{"line break in a tag", intent{Op: opRenameTag, From: "proj", To: "x\n# Injected", Paths: []string{"a.md"}}, "not one"},
		{"hidden path", intent{Op: opRenameTag, From: "proj", To: "done", Paths: []string{".obsidian/a.md"}}, "no note may have"},
		{"escaping path", intent{Op: opMove, Moves: map[string]string{"../x.md": "b.md"}}, "no note may have"},
	} {
		dir := writeVault(t, map[string]string{"a.md": before, "b.md": "b\n", ".obsidian/a.md": before})
		leaveJournal(t, dir, tc.in, "")
		r := recoverVault(t, dir)
		if len(r.LeftAlone) != 1 || !strings.Contains(r.LeftAlone[0], tc.why) || len(r.Completed) != 0 {
			t.Errorf("%s: recovered %+v, want it left alone as %q", tc.name, r, tc.why)
		}
		for _, p := range []string{"a.md", ".obsidian/a.md"} {
			if got := readNote(t, dir, p); got != before {
				t.Errorf("%s: %s = %q", tc.name, p, got)
			}
		}
	}
	// Signed, but the policy (the vault's .mcpignore) hides one note.
	dir := writeVault(t, map[string]string{"a.md": before, "Private/p.md": before, ".mcpignore": "Private/\n"})
	leaveJournal(t, dir, intent{Op: opRenameTag, From: "proj", To: "done", Paths: []string{"a.md", "Private/p.md"}}, "")
	recoverVault(t, dir)
	if got := readNote(t, dir, "Private/p.md"); got != before {
		t.Errorf("a note the policy hides was changed: %q", got)
	}
	if got := readNote(t, dir, "a.md"); !strings.Contains(got, "#done") {
		t.Errorf("the signed entry was not completed: %q", got)
	}
}

// TestRecoverCleansATornEntry: a process killed while it wrote an entry
// leaves a log without an entry, or the entry's temporary file; the next
// write removes them and the journal folder, so later writes do not look
// at the journal again.
func TestRecoverCleansATornEntry(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"a.md": "a\n"})
	jd := filepath.Join(dir, filepath.FromSlash(journalDir))
	if err := os.MkdirAll(jd, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"20261126T120000-AAAAAAAA.log", ".20261126T120000-BBBBBBBB.json.tmp-QWERTYUIOPAS"} {
		if err := os.WriteFile(filepath.Join(jd, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recoverVault(t, dir)
	if _, err := os.Stat(jd); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(jd)
		t.Errorf("the journal folder is still there: %v", entries)
	}
}

// TestRecoverBoundsWhatItReads: an entry over maxEntry is left alone
// without being read (a 300 MB entry was read whole at start).
func TestRecoverBoundsWhatItReads(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"a.md": "a\n"})
	leaveJournal(t, dir, intent{Op: opMove, Moves: map[string]string{"x.md": "a.md"}}, "")
	if err := os.Truncate(filepath.Join(dir, filepath.FromSlash(journalDir), "x.json"), maxEntry+1); err != nil {
		t.Fatal(err)
	}
	r := recoverVault(t, dir)
	if len(r.LeftAlone) != 1 || !strings.Contains(r.LeftAlone[0], "over the limit") {
		t.Errorf("recovered %+v", r)
	}
}

// TestStateFolderIsNotFollowed: a .obsidian-mcp that is a symlink (out of
// the vault, or into a visible folder the journal would be read from) is
// refused: no write takes its lock there, nothing is created through it.
func TestStateFolderIsNotFollowed(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	outside := t.TempDir()
	dir := writeVault(t, map[string]string{"a.md": "a\n", "Public/x.md": "x\n"})
	for _, target := range []string{outside, filepath.Join(dir, "Public")} {
		link := filepath.Join(dir, StateDir)
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		v, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Append(t.Context(), note.ByPath("a.md"), "more", false)
		_ = v.Close()
		if err == nil {
			t.Errorf("%s: a write went ahead with the state folder a symlink", target)
		}
		entries, _ := os.ReadDir(target)
		for _, e := range entries {
			if e.Name() != "x.md" {
				t.Errorf("%s: %s was made through the symlink", target, e.Name())
			}
		}
	}
	// A dangling link named lock, inside a real state folder, is not
	// followed to create its target.
	_ = os.Remove(filepath.Join(dir, StateDir))
	if err := os.Mkdir(filepath.Join(dir, StateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "created-by-lock")
	if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(lockFile))); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.Append(t.Context(), note.ByPath("a.md"), "more", false); err == nil {
		t.Error("a write took a lock through a symlink")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the lock's symlink was followed and its target created")
	}
}

// TestRecoverKnowsItsOwnEntries: an entry this process wrote and left
// unfinished (its edit stopped on an error) is finished as an own edit,
// never reported as a crash's; another run's entry with the same PID is
// a crash's.
func TestRecoverKnowsItsOwnEntries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		proc string
		own  bool
	}{{thisProcess, true}, {"another-run-0000", false}, {"", false}} {
		dir := writeVault(t, map[string]string{"Center.md": "# hub\n", "n.md": "see [[Hub]]\n"})
		leaveJournal(t, dir, intent{Op: opMove, PID: os.Getpid(), Proc: tc.proc, Moves: map[string]string{"Hub.md": "Center.md"}}, "")
		r := recoverVault(t, dir)
		if tc.own && (len(r.Resumed) != 1 || len(r.Completed) != 0 || !strings.Contains(r.Resumed[0], "by this process")) ||
			!tc.own && (len(r.Completed) != 1 || len(r.Resumed) != 0 || strings.Contains(r.Completed[0], "this process")) {
			t.Errorf("proc %q: recovered %+v", tc.proc, r)
		}
		if got := readNote(t, dir, "n.md"); got != "see [[Center]]\n" {
			t.Errorf("proc %q: n.md = %q", tc.proc, got)
		}
	}
}
