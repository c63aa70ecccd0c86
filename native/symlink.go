package native

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds the symlinks followed to resolve one path, as the
// system's own ELOOP limit does.
const maxLinkHops = 40

// RealPath is the vault path of the file or folder p leads to: p itself
// when no symlink is on its way, else where the symlinks (file or folder)
// take it, for a path that does not exist yet too (its existing folders
// are resolved). The folder policy judges both (policy.Resolving), so a
// link in a visible folder cannot carry a read or a write into a hidden
// one. A path that leaves the vault, or loops, is returned as it is: the
// vault's os.Root refuses to follow it anyway.
func (v *Engine) RealPath(p string) string {
	if p == "" || p == "." {
		return p
	}
	rest := strings.Split(p, "/")
	done := ""
	for hops := 0; len(rest) > 0; {
		next := path.Join(done, rest[0])
		fi, err := v.root.Lstat(next)
		if err != nil {
			// Missing from here on: the rest is as written.
			return path.Join(append([]string{done}, rest...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done, rest = next, rest[1:]
			continue
		}
		hops++
		target, err := v.root.Readlink(next)
		if hops > maxLinkHops || err != nil {
			return p
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) || filepath.IsAbs(target) {
			rel, ok := v.inside(target)
			if !ok {
				return p
			}
			target, done = rel, ""
		}
		joined := path.Clean(path.Join(done, target))
		if joined == ".." || strings.HasPrefix(joined, "../") {
			return p
		}
		// Resolve the link's target from the top again: it may hold links.
		rest = append(strings.Split(joined, "/"), rest[1:]...)
		done = ""
		if joined == "." {
			rest = rest[1:]
		}
	}
	if done == "" {
		return "."
	}
	return done
}

// inside turns an absolute symlink target into a vault path, when it is
// inside the vault folder.
func (v *Engine) inside(target string) (string, bool) {
	for _, base := range []string{v.dir, v.realDir()} {
		abs, err := filepath.Abs(base)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(abs, filepath.FromSlash(target))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// realDir is the vault folder with its own symlinks resolved (a vault under
// a linked home folder, say), or "" when it cannot be.
func (v *Engine) realDir() string {
	d, err := filepath.EvalSymlinks(v.dir)
	if err != nil {
		return ""
	}
	return d
}
