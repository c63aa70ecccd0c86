package app

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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
	{"The commands: flags, configuration, doctor and wiring", []string{"cmd/", "internal/app", "internal/settings", "internal/doctor"}},
	{"The server of one vault", []string{"internal/vaultserver"}},
	{"The protocol core and the transports that carry it", []string{"internal/protocol", "internal/transport/"}},
	{"Faces in front of other servers", []string{"internal/bridge", "internal/gateway"}},
	{"The tools", []string{"tools"}},
	{"The engine: the CLI, the folder, and the router between them", []string{"obsidiancli", "internal/backend", "native", "vaultindex", "links", "metadata", "note", "patch", "policy", "tasks", "canvas", "bases", "prompts", "errors"}},
	{"Tests and measurements", []string{"internal/obsidiantest", "internal/leasetest", "internal/testenv", "internal/conformance", "internal/vaultgen", "scripts/"}},
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

// maxLines bounds a non-test Go file: past it, a file holds more than one
// idea, and a reader has to scroll to find which.
const maxLines = 500

// TestFileSize fails for a non-test Go file over maxLines lines: split it
// where its ideas part.
func TestFileSize(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(data), "\n"); n > maxLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines, over %d: split it where its ideas part", rel, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// processSetters change what every goroutine of the process sees: the
// collector, the scheduler, the environment, the working folder, the
// default logger, signal handling.
var processSetters = map[string]bool{
	"debug.SetGCPercent": true, "debug.SetMemoryLimit": true, "debug.SetMaxThreads": true, "debug.SetMaxStack": true,
	"runtime.GOMAXPROCS": true, "os.Setenv": true, "os.Unsetenv": true, "os.Clearenv": true, "os.Chdir": true,
	"slog.SetDefault": true, "log.SetOutput": true, "log.SetFlags": true, "log.SetPrefix": true,
	"signal.Notify": true, "signal.NotifyContext": true, "signal.Ignore": true, "signal.Reset": true, "syscall.Umask": true,
}

// TestProcessPolicyInWiring fails when a library package changes a
// process-wide setting: that is the program's choice, made in its wiring
// (package main, internal/app), never a side effect of using a package
// (vaultindex once set the collector's pace itself). internal/obsidiantest
// is test support: it sets GORACE for the fakes a test binary starts.
// runtime.GOMAXPROCS(0) only reads.
func TestProcessPolicyInWiring(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") ||
				rel == "internal/app" || rel == "internal/obsidiantest" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := pkg.Name + "." + sel.Sel.Name
			if !processSetters[name] {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); name == "runtime.GOMAXPROCS" && len(call.Args) == 1 && ok && lit.Value == "0" {
				return true
			}
			t.Errorf("%s: %s in a library package: a process-wide setting is the program's choice; take it as an option and set it in internal/app", fset.Position(call.Pos()), name)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
