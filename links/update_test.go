package links

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestAddRemoveAsNewIndex: an index updated one file at a time is the
// index NewIndex makes of the files as they are then, for random vaults
// with names that differ only by case, share a name in other folders, and
// include files other than notes.
func TestAddRemoveAsNewIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"Note.md", "note.md", "Plan.md", "plan.pdf", "a.png", "Ideas.canvas", "Note.MD"}
	dirs := []string{"", "A/", "a/", "A/B/", "Z/"}
	for round := range 200 {
		var files []string
		for range r.IntN(12) {
			files = append(files, dirs[r.IntN(len(dirs))]+names[r.IntN(len(names))])
		}
		slices.Sort(files)
		files = slices.Compact(files)
		ix := NewIndex(files)
		for step := range 10 {
			f := dirs[r.IntN(len(dirs))] + names[r.IntN(len(names))]
			if i, found := slices.BinarySearch(files, f); found {
				files = slices.Delete(files, i, i+1)
				ix.Remove(f)
			} else {
				files = slices.Insert(files, i, f)
				ix.Add(f)
			}
			want := NewIndex(files)
			if !reflect.DeepEqual(ix, want) {
				t.Fatalf("round %d step %d (%s): updated\n%v\nwant\n%v", round, step, f, describe(ix), describe(want))
			}
		}
	}
}

func describe(ix *Index) string { return fmt.Sprintf("byPath %v\nbyName %v", ix.byPath, ix.byName) }
