package atomicfile

import (
	"os"

	udiff "github.com/aymanbagabas/go-udiff"
)

// How an update merges another program's save with its own change: line
// by line where they touch different lines, every line of both where they
// do not (union, displaced.go).

// mergeInto is the change that merges into the file as it is then what
// version made of base, line by line: the next round of an update whose
// write met another program's. Where the two change the same lines, every
// line of both is kept (union): version holds a save of another program
// that no file may hold any more, and the file now may hold its later
// saves, built without it (the writer read the note while its save was
// in ours only). Giving up then left that save in a conflict copy alone.
func mergeInto(base, version []byte) Change {
	return func(now []byte) ([]byte, error) {
		if m, ok := merge3(base, version, now); ok {
			return m, nil
		}
		return union(now, version), nil
	}
}

// merge3 merges two versions a and b of base line by line: the changes
// each made to base, when no two change the same lines (insertions at one
// place are both kept, a's first).
func merge3(base, a, b []byte) ([]byte, bool) {
	edits, ok := udiff.Merge(udiff.Lines(string(base), string(a)), udiff.Lines(string(base), string(b)))
	if !ok {
		return nil, false
	}
	merged, err := udiff.Apply(string(base), edits)
	if err != nil {
		return nil, false
	}
	return []byte(merged), true
}

// newer reports whether the file at a was changed after the one at b.
func newer(root *os.Root, a, b string) bool {
	fa, errA := root.Lstat(a)
	fb, errB := root.Lstat(b)
	return errA == nil && (errB != nil || fa.ModTime().After(fb.ModTime()))
}
