package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, from this package's folder.
var root = filepath.Join("..", "..")

// maxLines bounds a non-test Go file: past it, a file holds more than one
// idea, and a reader has to scroll to find which.
const maxLines = 500

// TestFileSize fails for a non-test Go file over maxLines lines: split it
// where its ideas part.
func TestFileSize(t *testing.T) {
	for path := range sources(t, "") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > maxLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines, over %d: split it where its ideas part", rel, n, maxLines)
		}
	}
}

// sources yields the path of every non-test Go file of the repository,
// outside hidden folders, testdata, node_modules and the folders skip
// names (slash-separated, relative to root; comma-separated).
func sources(t *testing.T, skip string) iter.Seq[string] {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") ||
				slices.Contains(strings.Split(skip, ","), filepath.ToSlash(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return slices.Values(paths)
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
	fset := token.NewFileSet()
	for path := range sources(t, "internal/app,internal/obsidiantest") {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			continue
		}
		packageCalls(f, func(call *ast.CallExpr, name string) {
			if !processSetters[name] {
				return
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); name == "runtime.GOMAXPROCS" && len(call.Args) == 1 && ok && lit.Value == "0" {
				return
			}
			t.Errorf("%s: %s in a library package: a process-wide setting is the program's choice; take it as an option and set it in internal/app", fset.Position(call.Pos()), name)
		})
	}
}

// module is the module path every package of ours has.
const module = "github.com/obsidian-mcp/obsidian-mcp/"

// denied are imports the packages' own documentation rules out: the two
// backends are siblings that share only note and the domain packages;
// tools know no backend or transport, nor does the vault's server know a
// transport; the domain packages know no backend, tool or server.
var denied = map[string][]string{
	"obsidiancli": {"native", "vaultindex", "internal/backend", "tools"},
	"native":      {"obsidiancli", "internal/backend", "tools"},
	"tools":       {"native", "obsidiancli", "internal/backend", "internal/transport", "internal/vaultserver", "internal/app"},
	// The vault's server knows no transport: serve's HTTP settings are
	// the serve command's.
	"internal/vaultserver": {"internal/transport"},
}

// domain packages import no package of the module but each other.
var domain = []string{"note", "metadata", "links", "patch", "policy", "tasks", "canvas", "bases", "yamltext", "errors"}

// TestNoSidewaysImports fails for an import the packages' documentation
// denies (obsidiancli once imported native for its path checks and
// vaultindex for its highlighting).
func TestNoSidewaysImports(t *testing.T) {
	fset := token.NewFileSet()
	for path := range sources(t, "") {
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			ours, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for owner, deny := range denied {
				if pkg != owner && !strings.HasPrefix(pkg, owner+"/") {
					continue
				}
				for _, d := range deny {
					if ours == d || strings.HasPrefix(ours, d+"/") {
						t.Errorf("%s imports %s: %s and %s are kept apart", fset.Position(imp.Pos()), ours, owner, d)
					}
				}
			}
			if isDomain(pkg) && !isDomain(ours) {
				t.Errorf("%s imports %s: the domain packages (%s) import only each other", fset.Position(imp.Pos()), ours, strings.Join(domain, ", "))
			}
		}
	}
}

func isDomain(pkg string) bool {
	for _, d := range domain {
		if pkg == d || strings.HasPrefix(pkg, d+"/") {
			return true
		}
	}
	return false
}

// packageCalls calls fn with each call of a package's function in f
// (pkg.Name(...)), named "pkg.Name".
func packageCalls(f *ast.File, fn func(call *ast.CallExpr, name string)) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); ok {
			fn(call, pkg.Name+"."+sel.Sel.Name)
		}
		return true
	})
}
