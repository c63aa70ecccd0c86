package links

import (
	"iter"
	"path"
	"slices"
	"strings"
)

const mdExt = ".md"

// Index resolves link paths against a vault's files the way Obsidian's
// getFirstLinkpathDest does (observed on Obsidian 1.13.7):
//
//  1. a path starting with ./ or ../ is relative to the linking note;
//  2. an exact vault path wins ("Note" is Note.md at the root, even when a
//     Note.md sits beside the linking note), matched case-insensitively,
//     with or without .md;
//  3. otherwise, among the files whose name (and trailing folders, for a
//     path with '/') match case-insensitively, one in the linking note's
//     own folder wins, else the shortest path, else the first in byte order.
//
// Files other than Markdown notes match only with their extension.
type Index struct {
	byPath multi // lower-case path → paths
	byName multi // lower-case base name, and stem of .md files → paths
}

// multi maps keys to sorted lists of paths. Nearly every key has one
// path, kept as a string of its own: a list for each would cost a vault
// of 100,000 notes some 7 MB more, in 300,000 small allocations.
type multi struct {
	one  map[string]string
	more map[string][]string // keys with two paths or more
}

func newMulti(n int) multi {
	return multi{one: make(map[string]string, n), more: map[string][]string{}}
}

// all are k's paths in order.
func (m *multi) all(k string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if f, ok := m.one[k]; ok {
			yield(f)
			return
		}
		for _, f := range m.more[k] {
			if !yield(f) {
				return
			}
		}
	}
}

// first is k's first path, "" for none.
func (m *multi) first(k string) string {
	if f, ok := m.one[k]; ok {
		return f
	}
	if l := m.more[k]; len(l) > 0 {
		return l[0]
	}
	return ""
}

// append adds f, sorting after k's paths (NewIndex's sorted files).
func (m *multi) append(k, f string) {
	if l, ok := m.more[k]; ok {
		m.more[k] = append(l, f)
	} else if o, ok := m.one[k]; ok {
		delete(m.one, k)
		m.more[k] = []string{o, f}
	} else {
		m.one[k] = f
	}
}

// insert adds f in order, once; a list is never changed in place.
func (m *multi) insert(k, f string) {
	if l, ok := m.more[k]; ok {
		m.more[k] = insertSorted(l, f)
	} else if o, ok := m.one[k]; !ok {
		m.one[k] = f
	} else if o != f {
		delete(m.one, k)
		m.more[k] = insertSorted([]string{o}, f)
	}
}

// remove takes f out of k's paths.
func (m *multi) remove(k, f string) {
	if o, ok := m.one[k]; ok {
		if o == f {
			delete(m.one, k)
		}
		return
	}
	switch l := removeSorted(m.more[k], f); len(l) {
	case 0:
		delete(m.more, k)
	case 1:
		delete(m.more, k)
		m.one[k] = l[0]
	default:
		m.more[k] = l
	}
}

// NewIndex indexes files, vault-relative paths with '/' separators.
func NewIndex(files []string) *Index {
	ix := &Index{byPath: newMulti(len(files)), byName: newMulti(2 * len(files))}
	for _, f := range files {
		ix.add(f)
	}
	return ix
}

func (ix *Index) add(f string) {
	lf := strings.ToLower(f)
	ix.byPath.append(lf, f)
	base := path.Base(lf)
	ix.byName.append(base, f)
	if stem, ok := strings.CutSuffix(base, mdExt); ok {
		ix.byName.append(stem, f)
	}
}

// Add indexes f, as NewIndex would have had files held it: one added
// note costs a 100,000-note vault a few map updates, not a new index
// (0.2 s).
func (ix *Index) Add(f string) {
	lf := strings.ToLower(f)
	ix.byPath.insert(lf, f)
	base := path.Base(lf)
	ix.byName.insert(base, f)
	if stem, ok := strings.CutSuffix(base, mdExt); ok {
		ix.byName.insert(stem, f)
	}
}

// Remove takes f out of the index.
func (ix *Index) Remove(f string) {
	lf := strings.ToLower(f)
	ix.byPath.remove(lf, f)
	base := path.Base(lf)
	ix.byName.remove(base, f)
	if stem, ok := strings.CutSuffix(base, mdExt); ok {
		ix.byName.remove(stem, f)
	}
}

// insertSorted adds f to the sorted list l, once, keeping it sorted (the
// order NewIndex, given sorted files, makes), in a new slice: l may be
// shared.
func insertSorted(l []string, f string) []string {
	i, found := slices.BinarySearch(l, f)
	if found {
		return l
	}
	return slices.Insert(slices.Clip(l), i, f)
}

// removeSorted is l without f, in a new slice.
func removeSorted(l []string, f string) []string {
	i, found := slices.BinarySearch(l, f)
	if !found {
		return l
	}
	return slices.Delete(slices.Clone(l), i, i+1)
}

// exact finds p, or p+".md", preferring the exact spelling.
func (ix *Index) exact(p string) string {
	for _, q := range []string{p, p + mdExt} {
		k := strings.ToLower(q)
		for c := range ix.byPath.all(k) {
			if c == q {
				return c
			}
		}
		if c := ix.byPath.first(k); c != "" {
			return c
		}
	}
	return ""
}

// Resolve returns the file linkpath designates from the note at source, or
// "" when it resolves to nothing.
func (ix *Index) Resolve(linkpath, source string) string {
	lp := strings.TrimPrefix(linkpath, "/")
	if lp == "" {
		return ""
	}
	if strings.HasPrefix(lp, "./") || strings.HasPrefix(lp, "../") {
		p := path.Join(dir(source), lp)
		if p == ".." || strings.HasPrefix(p, "../") {
			return ""
		}
		return ix.exact(p)
	}
	if f := ix.exact(lp); f != "" {
		return f
	}
	low := strings.ToLower(lp)
	var best string
	srcDir := dir(source)
	for f := range ix.byName.all(path.Base(low)) {
		if strings.Contains(low, "/") {
			lf := strings.ToLower(f)
			if !strings.HasSuffix(lf, "/"+low) && !strings.HasSuffix(lf, "/"+low+mdExt) {
				continue
			}
		}
		if better(f, best, srcDir) {
			best = f
		}
	}
	return best
}

// better reports whether candidate f beats the best so far.
func better(f, best, srcDir string) bool {
	if best == "" {
		return true
	}
	if fIn, bIn := dir(f) == srcDir, dir(best) == srcDir; fIn != bIn {
		return fIn
	}
	if len(f) != len(best) {
		return len(f) < len(best)
	}
	return f < best
}

// Format is Obsidian's "New link format" setting (Files and links).
type Format string

// The formats Obsidian offers; Shortest is its default.
const (
	Shortest Format = "shortest"
	Relative Format = "relative"
	Absolute Format = "absolute"
)

// Text returns the link path to write in the note at source so that it
// resolves to target, in format. Wikilinks omit the .md extension;
// Markdown links keep it (the caller encodes it). Whatever the format, the
// result is checked to resolve to target, with the full vault path (with
// its extension when needed) as the fallback that always does.
func (ix *Index) Text(target, source string, format Format, markdown bool) string {
	full := target
	if !markdown {
		full = strings.TrimSuffix(target, mdExt)
	}
	var cand string
	switch format {
	case Absolute:
		cand = full
	case Relative:
		cand = relative(dir(source), full)
	default:
		cand = path.Base(full)
	}
	if ix.Resolve(cand, source) == target {
		return cand
	}
	if full != target && ix.Resolve(full, source) != target {
		// Without its extension the path names another file: B.md.md's
		// [[B.md]] is B.md (found by FuzzRetarget). With it, it is exact.
		return target
	}
	return full
}

// relative returns the path of p from folder from, both vault-relative.
func relative(from, p string) string {
	var fromSegs []string
	if from != "" {
		fromSegs = strings.Split(from, "/")
	}
	segs := strings.Split(p, "/")
	i := 0
	for i < len(fromSegs) && i < len(segs)-1 && fromSegs[i] == segs[i] {
		i++
	}
	up := strings.Repeat("../", len(fromSegs)-i)
	return up + strings.Join(segs[i:], "/")
}

func dir(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}
