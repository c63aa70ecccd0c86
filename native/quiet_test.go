package native

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestQuietListing: where the watcher vouches that nothing changed, a
// query takes the vault's listing as the last walk left it, and never a
// stale one: in 150 rounds of notes added (in folders old and new),
// removed, renamed, folders removed, or nothing done, the pages a query
// finds are the notes on disk, and the folders were walked in every
// round but the quiet ones.
func TestQuietListing(t *testing.T) {
	if runtime.GOOS != "linux" || fallbackBuild {
		t.Skip("the watcher is used on Linux only; elsewhere every query walks the folders")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"A/one.md": "x", "B/C/two.md": "y"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	onDisk := func() []string {
		var out []string
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		slices.Sort(out)
		return out
	}
	q := note.DataviewQuery{Query: `LIST WITHOUT ID file.path FROM "" SORT file.path`}
	pages := func() []string {
		var got []string
		if err := json.Unmarshal([]byte(dvQuery(t, v, q)), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	pages() // the index built, the watcher started
	r := rand.New(rand.NewPCG(7, 7))
	quiet := 0
	for round := range 150 {
		notes := onDisk()
		walks := v.list.walks
		did := "nothing"
		switch k := r.IntN(6); {
		case k == 0:
			did = fmt.Sprintf("A/n%d.md", round)
			writeFiles(t, dir, map[string]string{did: "new"})
		case k == 1:
			did = fmt.Sprintf("New%d/Deep/n.md", round)
			writeFiles(t, dir, map[string]string{did: "new"})
		case k == 2 && len(notes) > 0:
			did = notes[r.IntN(len(notes))]
			if err := os.Remove(filepath.Join(dir, did)); err != nil {
				t.Fatal(err)
			}
		case k == 3 && len(notes) > 0:
			from := notes[r.IntN(len(notes))]
			did = fmt.Sprintf("B/moved%d.md", round)
			if err := os.MkdirAll(filepath.Join(dir, "B"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, did)); err != nil {
				t.Fatal(err)
			}
		case k == 4:
			did = fmt.Sprintf("New%d", round-1)
			if err := os.RemoveAll(filepath.Join(dir, did)); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := pages(), onDisk(); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("round %d (%s): pages %q, on disk %q", round, did, got, want)
		}
		if did == "nothing" {
			if v.list.walks != walks {
				t.Fatalf("round %d: nothing changed, and the folders were walked", round)
			}
			quiet++
		}
	}
	if quiet == 0 {
		t.Fatal("no quiet round: the test proves nothing")
	}
}
