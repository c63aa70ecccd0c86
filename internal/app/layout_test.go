package app

import (
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layoutGroups say where each package belongs, so that a newcomer finds the
// commands, the protocol and its transports, the tools and the engine at a
// glance. A package is in the first group one of whose prefixes its path
// has; a package in none fails TestREADME until it is placed.
var layoutGroups = []struct {
	name     string
	prefixes []string
}{
	{"The commands: flags, configuration, doctor and wiring", []string{"cmd/", "internal/app", "internal/serve", "internal/settings", "internal/doctor", "internal/shutdown"}},
	{"The server of one vault", []string{"internal/vaultserver"}},
	{"The protocol core and the transports that carry it", []string{"internal/protocol", "internal/transport/", "internal/historypage"}},
	{"Who may do what: one guard, OAuth", []string{"internal/auth"}},
	{"Faces in front of other servers", []string{"internal/bridge", "internal/gateway"}},
	{"The tools", []string{"tools"}},
	{"The engine: the CLI, the folder, and the router between them", []string{"obsidiancli", "internal/backend", "native", "internal/atomicfile", "internal/changes", "vaultindex", "links", "metadata", "note", "patch", "policy", "tasks", "canvas", "bases", "dataview", "evalbudget", "jsregex", "prompts", "yamltext", "errors"}},
	{"Tests and measurements", []string{"internal/layout", "internal/obsidiantest", "internal/leasetest", "internal/hostile", "internal/testenv", "internal/conformance", "internal/vaultgen", "internal/benchfigures", "scripts/"}},
}

// layoutMarkdown lists every Go package of the module under its group, with
// the first sentence of its package comment: generated, so it cannot drift.
func layoutMarkdown(t *testing.T, root string) string {
	t.Helper()
	synopses := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		text, isPackage := "", false
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			isPackage = true
			if f.Doc != nil {
				text = f.Doc.Text()
			}
		}
		switch {
		case !isPackage:
		case text == "":
			t.Errorf("%s has no package comment: say what it provides", rel)
		default:
			synopses[filepath.ToSlash(rel)] = (&doc.Package{}).Synopsis(text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	placed := map[int][]string{}
	for path := range synopses {
		group := slices.IndexFunc(layoutGroups, func(g struct {
			name     string
			prefixes []string
		}) bool {
			return slices.ContainsFunc(g.prefixes, func(p string) bool {
				return path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) || strings.HasPrefix(path, p+"/")
			})
		})
		if group < 0 {
			t.Errorf("package %s is in no group of layoutGroups: place it", path)
			continue
		}
		placed[group] = append(placed[group], path)
	}
	var b strings.Builder
	for i, g := range layoutGroups {
		paths := placed[i]
		slices.Sort(paths)
		fmt.Fprintf(&b, "- **%s**\n", g.name)
		for _, path := range paths {
			fmt.Fprintf(&b, "  - `%s` %s\n", path, describe(path, synopses[path]))
		}
	}
	return b.String()
}

// describe is a package's synopsis without its "Package x" or "Command x"
// opening, which the listing's path already says.
func describe(path, synopsis string) string {
	for _, lead := range []string{"Package ", "Command "} {
		if rest, ok := strings.CutPrefix(synopsis, lead+filepath.Base(path)+" "); ok {
			return rest
		}
	}
	return synopsis
}
