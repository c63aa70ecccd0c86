package native

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
)

// TestListingPatchedAsListedAnew: the listing a long-lived engine keeps,
// patched as notes come and go (delta), is always the one a fresh engine
// lists, and so are the names it resolves by: over random adds and
// removals in several folders, with new folders and folders removed
// between them.
func TestListingPatchedAsListedAnew(t *testing.T) {
	t.Parallel()
	dir := writeVault(t, map[string]string{"Root.md": "r", "A/One.md": "1", "A/B/Two.md": "2", "C/Three.md": "3"})
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r := rand.New(rand.NewPCG(3, 4))
	folders := []string{"", "A", "A/B", "C"}
	names := []string{"Note.md", "note.md", "Plan.md", "plan.pdf", "Img.png", "Board.canvas", ".hidden.md"}
	for step := range 150 {
		var what string
		switch k := r.IntN(20); {
		case k == 0: // a folder comes
			f := fmt.Sprintf("New%d", step)
			what = "mkdir " + f
			if err := os.MkdirAll(filepath.Join(dir, f), 0o755); err != nil {
				t.Fatal(err)
			}
			folders = append(folders, f)
		case k == 1 && len(folders) > 4: // one goes
			f := folders[len(folders)-1]
			folders = folders[:len(folders)-1]
			what = "rm -r " + f
			if err := os.RemoveAll(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		default:
			p := path.Join(folders[r.IntN(len(folders))], names[r.IntN(len(names))])
			full := filepath.Join(dir, filepath.FromSlash(p))
			var err error
			if _, statErr := os.Stat(full); statErr == nil {
				what = "rm " + p
				err = os.Remove(full)
			} else {
				what = "add " + p
				err = os.WriteFile(full, []byte("x"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := v.Files()
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Files()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d (%s): listing\n%q\nwant\n%q", step, what, got, want)
		}
		for _, name := range []string{"note", "Note.md", "plan.pdf", "img.png", "board.canvas"} {
			c1, _ := v.candidates(name)
			c2, _ := fresh.candidates(name)
			if !slices.Equal(c1, c2) {
				t.Fatalf("step %d (%s): %q resolves to %q, want %q", step, what, name, c1, c2)
			}
		}
		_ = fresh.Close()
	}
}
