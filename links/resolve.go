package links

import (
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
	byPath map[string][]string // lower-case path → paths
	byName map[string][]string // lower-case base name, and stem of .md files → paths
}

// NewIndex indexes files, vault-relative paths with '/' separators.
func NewIndex(files []string) *Index {
	ix := &Index{byPath: make(map[string][]string, len(files)), byName: make(map[string][]string, len(files))}
	for _, f := range files {
		ix.add(f)
	}
	return ix
}

func (ix *Index) add(f string) {
	lf := strings.ToLower(f)
	ix.byPath[lf] = append(ix.byPath[lf], f)
	base := path.Base(lf)
	ix.byName[base] = append(ix.byName[base], f)
	if stem, ok := strings.CutSuffix(base, mdExt); ok {
		ix.byName[stem] = append(ix.byName[stem], f)
	}
}

// Add indexes f, as NewIndex would have had files held it: one added
// note costs a 100,000-note vault a few map updates, not a new index
// (0.2 s).
func (ix *Index) Add(f string) {
	lf := strings.ToLower(f)
	ix.byPath[lf] = insertSorted(ix.byPath[lf], f)
	base := path.Base(lf)
	ix.byName[base] = insertSorted(ix.byName[base], f)
	if stem, ok := strings.CutSuffix(base, mdExt); ok {
		ix.byName[stem] = insertSorted(ix.byName[stem], f)
	}
}

// Remove takes f out of the index.
func (ix *Index) Remove(f string) {
	lf := strings.ToLower(f)
	drop := func(m map[string][]string, k string) {
		if l := removeSorted(m[k], f); len(l) > 0 {
			m[k] = l
		} else {
			delete(m, k)
		}
	}
	drop(ix.byPath, lf)
	base := path.Base(lf)
	drop(ix.byName, base)
	if stem, ok := strings.CutSuffix(base, mdExt); ok {
		drop(ix.byName, stem)
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
		cands := ix.byPath[strings.ToLower(q)]
		for _, c := range cands {
			if c == q {
				return c
			}
		}
		if len(cands) > 0 {
			return cands[0]
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
	for _, f := range ix.byName[path.Base(low)] {
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
