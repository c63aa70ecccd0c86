package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository, from this package's folder.
var root = filepath.Join("..", "..")

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
