package note

import (
	"path"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// ListEntries does a listing's work for any backend: files and folders are
// every vault path of each kind; stat describes one (false: it vanished).
func ListEntries(req ListRequest, files, folders []string, stat func(string) (Entry, bool)) (Listing, error) {
	base := strings.Trim(req.Folder, "/")
	if base != "" {
		// folders may be shared (Vault.Folders) and in any order (the
		// CLI's): look, never sort it in place.
		if !slices.Contains(folders, base) {
			return Listing{}, errors.E(errors.FileNotFound, "folder not found: %s", base).
				WithHint("List the vault's root (no folder) with recursive to see its folders; paths are case-sensitive.")
		}
	}
	var match func(string) bool
	if req.Glob != "" {
		re, err := globRegexp(req.Glob)
		if err != nil {
			return Listing{}, errors.InvalidFields(errors.Field{Field: "glob", Message: err.Error()})
		}
		match = re.MatchString
	}
	ext := strings.ToLower(strings.TrimPrefix(req.Ext, "."))
	within := func(p string) (string, bool) {
		rel := p
		if base != "" {
			var ok bool
			if rel, ok = strings.CutPrefix(p, base+"/"); !ok {
				return "", false
			}
		}
		if !req.Recursive && strings.Contains(rel, "/") {
			return "", false
		}
		if match != nil {
			target := rel
			if !strings.Contains(req.Glob, "/") {
				target = path.Base(rel)
			}
			if !match(target) {
				return "", false
			}
		}
		return rel, true
	}
	var paths []string
	if ext == "" && !req.Unused {
		for _, f := range folders {
			if _, ok := within(f); ok && f != base {
				paths = append(paths, f)
			}
		}
	}
	for _, f := range files {
		if ext != "" && strings.ToLower(Ext(f)) != ext {
			continue
		}
		if _, ok := within(f); ok {
			paths = append(paths, f)
		}
	}
	// Stat on every core: a recursive listing of a large vault is
	// thousands of stats, most of its cost.
	found := make([]Entry, len(paths))
	ok := make([]bool, len(paths))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 1+len(paths)/256)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				found[i], ok[i] = stat(paths[i])
			}
		}()
	}
	wg.Wait()
	entries := make([]Entry, 0, len(paths))
	for i, e := range found {
		if ok[i] {
			entries = append(entries, e)
		}
	}
	switch req.Sort {
	case "modified":
		sort.SliceStable(entries, func(a, b int) bool {
			if !entries[a].Modified.Equal(entries[b].Modified) {
				return entries[a].Modified.After(entries[b].Modified)
			}
			return entries[a].Path < entries[b].Path
		})
	default:
		sort.Slice(entries, func(a, b int) bool { return entries[a].Path < entries[b].Path })
	}
	total := len(entries)
	if req.Offset < len(entries) {
		entries = entries[req.Offset:min(len(entries), req.Offset+req.Limit)]
	} else {
		entries = []Entry{}
	}
	return Listing{Total: total, Entries: entries}, nil
}

// globRegexp compiles a glob: * and ? within a name, ** across folders,
// [abc] classes; matching ignores case, as Obsidian's file names do on
// the systems most vaults live on.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?i)^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
				if i+1 < len(glob) && glob[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(glob[i:], ']')
			if end < 0 {
				return nil, errors.New("has a '[' without its ']': close the class, e.g. [0-9]")
			}
			b.WriteString(glob[i : i+end+1])
			i += end
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, errors.New("is not a valid glob: use * (any name part), ** (any folders), ? (one character) and [a-z] classes")
	}
	return re, nil
}
