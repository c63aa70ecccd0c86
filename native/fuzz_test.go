package native

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/hostile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// plantPaths and plantTargets are what FuzzStateFolder combines: each pair
// of its input's bytes plants one path of the state folder as a link to
// one target, a file or a folder.
var (
	plantPaths = []string{
		"displaced", "displaced/DEADDEADDEAD", "displaced/DEADDEADDEAD/lock", "displaced/DEADDEADDEAD/.owner",
		"displaced/DEADDEADDEAD/X7Q2MZ4KLA3B", "journal", "journal/20261126T120000-AAAAAAAA.json",
		"journal/20261126T120000-AAAAAAAA.log", "journal/.20261126T120000-BBBBBBBB.json.tmp-QWERTYUIOPAS",
		"index", "index/snapshot", "lock", "",
	}
	plantTargets = []string{"..", "../..", "../../..", "../Notes", "../../Notes", "../../../Notes", "$OUT",
		"../Notes/a.md", "../../Notes/a.md", "top.md", "<file>", "<folder>"}
)

// FuzzStateFolder: whatever links, files and folders a vault brings in
// its state folder, a write, a journaled tag rename, recovery at the next
// start and Close change nothing outside that folder but the two notes
// they edit. (TestStateFolderLayouts has the named layouts.)
func FuzzStateFolder(f *testing.F) {
	if runtime.GOOS == "windows" {
		f.Skip("symlinks need privileges on Windows")
	}
	f.Add([]byte{0, 0})
	f.Add([]byte{5, 3})
	f.Add([]byte{1, 1, 2, 7})
	f.Add([]byte{12, 3})
	f.Add([]byte{1, 11, 2, 8, 3, 10})
	key := WithJournalKey(filepath.Join(f.TempDir(), "key"))
	f.Fuzz(func(t *testing.T, plan []byte) {
		if len(plan) > 16 {
			plan = plan[:16]
		}
		base := t.TempDir()
		dir, out := filepath.Join(base, "vault"), filepath.Join(base, "outside")
		if err := hostile.Make(dir, out, hostile.Layout{}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(plan); i += 2 {
			plant(dir, out, plantPaths[int(plan[i])%len(plantPaths)], plantTargets[int(plan[i+1])%len(plantTargets)])
		}
		before, _ := hostile.Snapshot(base)
		v, err := Open(dir, key)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = v.Append(t.Context(), note.ByPath("top.md"), "more", false)
		_, _ = v.RenameTag(t.Context(), "proj", "done", []string{"Notes/a.md"})
		_ = v.Close()
		if v, err = Open(dir, key); err == nil {
			_, _ = v.Recover(t.Context())
			_ = v.Close()
		}
		after, _ := hostile.Snapshot(base)
		if d := hostile.Changed(before, after, "vault/top.md", "vault/Notes/a.md"); len(d) > 0 {
			t.Errorf("plan %v: changed outside the state folder: %v", plan, d)
		}
	})
}

// plant puts a link (or a file, or a folder) at the state folder's path
// p, unless a place on its way is not a real folder: nothing is planted
// through a link.
func plant(dir, out, p, target string) {
	full := StateDir
	if p != "" {
		full += "/" + p
	}
	parts := strings.Split(full, "/")
	at := dir
	for _, part := range parts[:len(parts)-1] {
		at = filepath.Join(at, part)
		if fi, err := os.Lstat(at); err == nil && !fi.IsDir() {
			return
		} else if err != nil && os.Mkdir(at, 0o755) != nil {
			return
		}
	}
	at = filepath.Join(at, parts[len(parts)-1])
	if _, err := os.Lstat(at); err == nil {
		return
	}
	switch target {
	case "<file>":
		_ = os.WriteFile(at, []byte("planted\n"), 0o644)
	case "<folder>":
		_ = os.Mkdir(at, 0o755)
	default:
		target = strings.Replace(target, "$OUT", out, 1)
		_ = os.Symlink(filepath.FromSlash(target), at)
	}
}
