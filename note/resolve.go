package note

import (
	"path"
	"sort"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Resolve finds the one file among files (vault-relative paths) that name
// designates, the way Obsidian resolves a wikilink: an exact path (with or
// without .md) wins; otherwise the name matches, case-insensitively, a file
// whose base name, or whose trailing path segments for a name with a '/',
// equal it with or without .md.
//
// Obsidian silently picks one note when several match. We refuse instead:
// acting on the wrong note is worse than asking, so several matches give
// AMBIGUOUS_NAME listing every candidate, and none give FILE_NOT_FOUND.
func Resolve(name string, files []string) (string, error) {
	withExt := name + MarkdownExt
	for _, f := range files {
		if f == name || f == withExt {
			return f, nil
		}
	}
	lname, lwith := strings.ToLower(name), strings.ToLower(withExt)
	var matches []string
	for _, f := range files {
		lf := strings.ToLower(f)
		if strings.Contains(name, "/") {
			if lf == lname || lf == lwith || strings.HasSuffix(lf, "/"+lname) || strings.HasSuffix(lf, "/"+lwith) {
				matches = append(matches, f)
			}
			continue
		}
		if b := path.Base(lf); b == lname || b == lwith {
			matches = append(matches, f)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", errors.E(errors.FileNotFound, "no note named %q in the vault", name).
			WithHint("Check the spelling, or pass the exact vault-relative path in `path`.").
			With("name", name)
	}
	sort.Strings(matches)
	e := errors.E(errors.AmbiguousName, "the name %q matches %d notes; nothing was done", name, len(matches)).
		WithHint("Call again with `path` set to one of the candidates.").
		With("name", name)
	e.Candidates = matches
	return "", e
}
