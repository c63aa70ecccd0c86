package native

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// writeEntry leaves a journal entry named name, with its log, as a
// process that died would have: signed with this user's key unless its
// MAC says "unsigned" or "another key".
func writeEntry(t *testing.T, dir, name string, in intent, log string) {
	t.Helper()
	if in.Host == "" {
		in.Host, _ = os.Hostname()
	}
	in.PID, in.Started = 999999, time.Now().UTC()
	switch in.MAC {
	case "":
		in.MAC = (&signer{}).sign(in) // this user's key, as the dead process had
	case "unsigned":
		in.MAC = ""
	case "another key":
		in.MAC = (&signer{file: filepath.Join(t.TempDir(), "journal.key")}).sign(in)
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	jd := filepath.Join(dir, filepath.FromSlash(journalDir))
	if err := os.MkdirAll(jd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jd, name+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jd, name+".log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRecoveryOfTwoEntries: a move and then a tag rename, both cut short,
// are finished at the next start, in the order they began: the move's
// recovery rewrites links in notes the tag rename had logged, and the tag
// rename's recovery takes that change for its own recovery's, not for
// another program's: 0 notes keep the old tag or the old link. (Without
// the replay log, 30 of 50 notes kept #proj, reported as changed by
// another program.)
func TestRecoveryOfTwoEntries(t *testing.T) {
	t.Parallel()
	const n = 50
	files := map[string]string{"New.md": "# the moved note\n"}
	body := func(link, tag string) string { return fmt.Sprintf("# note\n[[%s]] #%s\n", link, tag) }
	var paths []string
	var log strings.Builder
	for i := range n {
		p := fmt.Sprintf("n%02d.md", i)
		paths = append(paths, p)
		link := "Old"
		if i < 10 {
			link = "New" // the move rewrote these before it stopped
		}
		before, after := body(link, "proj"), body(link, "done")
		// The tag rename computed every note (its log has them all)
		// and replaced the first 20 before it stopped.
		fmt.Fprintf(&log, "%s %s %s\n", note.ETag([]byte(before)), note.ETag([]byte(after)), p)
		files[p] = before
		if i < 20 {
			files[p] = after
		}
	}
	dir := writeVault(t, files)
	// The tag rename's entry sorts first by name, but began second.
	writeEntry(t, dir, "00000000000000000001-AAAAAAAA", intent{Op: opRenameTag, From: "proj", To: "done", Paths: paths, Seq: 2}, log.String())
	writeEntry(t, dir, "00000000000000000002-BBBBBBBB", intent{Op: opMove, Moves: map[string]string{"Old.md": "New.md"}, Seq: 1}, "")

	r := recoverVault(t, dir)
	if len(r.Completed) != 2 || !strings.Contains(r.Completed[0], "move") || !strings.Contains(r.Completed[1], "tag") {
		t.Errorf("completed %q, want the move first, then the tag rename", r.Completed)
	}
	oldTag, oldLink := 0, 0
	for _, p := range paths {
		got := readNote(t, dir, p)
		if strings.Contains(got, "#proj") {
			oldTag++
		}
		if strings.Contains(got, "[[Old]]") {
			oldLink++
		}
	}
	if oldTag+oldLink > 0 {
		t.Errorf("after recovery, %d of %d notes keep the old tag and %d the old link; recovered %+v", oldTag, n, oldLink, r)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(journalDir))); !os.IsNotExist(err) {
		t.Errorf("the journal is still there (%v)", err)
	}
}

// TestSkippedNotesAreReported: a note a recovery leaves for the person
// (changed by another program since the crash) is said in a report that
// stays in the state folder, and that Pending lists, after the entry
// itself is removed.
func TestSkippedNotesAreReported(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"a.md": "changed by hand #proj\n"})
	before, after := "a #proj\n", "a #done\n"
	writeEntry(t, dir, "00000000000000000001-AAAAAAAA", intent{Op: opRenameTag, From: "proj", To: "done", Paths: []string{"a.md"}, Seq: 1},
		fmt.Sprintf("%s %s a.md\n", note.ETag([]byte(before)), note.ETag([]byte(after))))
	recoverVault(t, dir)
	if got := readNote(t, dir, "a.md"); got != "changed by hand #proj\n" {
		t.Errorf("a note another program changed was changed: %q", got)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p := v.Pending()
	if len(p.Reports) != 1 || !strings.Contains(p.Reports[0].Text, "a.md") || len(p.Entries) != 0 {
		t.Errorf("pending %+v, want one report naming a.md and no entry", p)
	}
}

// TestParkingDescriptorsBounded: a tag rename of 100 notes keeps at most
// 32 displaced files open at once (each is a descriptor the process's
// other calls need; a rename of 2,000 notes once held 274).
func TestParkingDescriptorsBounded(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	var paths []string
	for i := range 100 {
		p := fmt.Sprintf("n%03d.md", i)
		files[p], paths = "x #proj\n", append(paths, p)
	}
	dir := writeVault(t, files)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	res, err := v.RenameTag(t.Context(), "proj", "done", paths)
	if err != nil || res.Notes != 100 {
		t.Fatalf("rename: %+v %v", res, err)
	}
	if n := v.published.Watching(); n > 32 || (atomicfile.HasLeases && n == 0) {
		t.Errorf("%d displaced files watched right after the rename, want 1 to 32", n)
	}
}
