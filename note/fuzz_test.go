package note

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPathChecks: a path CheckPath accepts stays inside the vault whatever
// joins it to the vault folder: it is clean, local (no "..", not absolute,
// no drive or separator tricks), and so is any folder plus name the checks
// accept together.
func FuzzPathChecks(f *testing.F) {
	for _, s := range []string{"A.md", "Projects/Plan.md", "../x.md", "/etc/passwd", "C:x.md", `a\b.md`, "a//b.md", "a/./b.md",
		"a/../../b.md", ".obsidian/app.json", "é/漢字.md", "a\x00b", "a\u0085b.md", " x .md", "x/", "…/..", "CON.md"} {
		f.Add(s, "Folder")
	}
	f.Fuzz(func(t *testing.T, p, folder string) {
		if CheckPath(p) == "" {
			if path.Clean(p) != p {
				t.Fatalf("accepted %q, which is not clean (%q)", p, path.Clean(p))
			}
			if !filepath.IsLocal(filepath.FromSlash(p)) || strings.Contains(p, "\\") {
				t.Fatalf("accepted %q, which is not local to the vault", p)
			}
			root := filepath.FromSlash("/vault")
			if j := filepath.Join(root, filepath.FromSlash(p)); !strings.HasPrefix(j, root+string(filepath.Separator)) {
				t.Fatalf("accepted %q, which joins to %q outside %q", p, j, root)
			}
		}
		if CheckName(p) == "" && CheckPath(p) != "" {
			t.Fatalf("name %q accepted but not as a path", p)
		}
		if CheckFolder(folder) == "" && CheckNewName(p) == "" {
			if j := Join(folder, p); CheckPath(j) != "" {
				t.Fatalf("folder %q and name %q accepted, but together %q is refused: %s", folder, p, j, CheckPath(j))
			}
		}
	})
}
