package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutsideProgramsSaySoFirst: a test that drives a program beside Go
// (through outside or need, directly or by a helper) calls outside(t) on
// its first line, so that without the switch it skips before it starts
// anything: TestInspectorOAuth once looked for a browser first and, on a
// machine with Chromium and no switch, ran and failed.
func TestOutsideProgramsSaySoFirst(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	// drives: the functions that reach outside or need, by name (methods
	// and functions alike), to a fixed point.
	drives := map[string]bool{"outside": true, "need": true}
	for changed := true; changed; {
		changed = false
		for name, fd := range funcs {
			if drives[name] || fd.Body == nil {
				continue
			}
			if calls(fd.Body, drives) {
				drives[name], changed = true, true
			}
		}
	}
	// A test, or a function literal in one (a subtest), that calls such a
	// function itself must start with outside(t); calls in a literal
	// nested in it are the literal's.
	n := 0
	for name, fd := range funcs {
		if !strings.HasPrefix(name, "Test") || name == "TestMain" || fd.Body == nil {
			continue
		}
		var visit func(what string, at token.Pos, body *ast.BlockStmt, covered bool)
		visit = func(what string, at token.Pos, body *ast.BlockStmt, covered bool) {
			covered = covered || firstIsOutside(body)
			if calls(body, drives) {
				n++
				if !covered {
					t.Errorf("%s: %s drives a program beside Go: call outside(t) on its first line", fset.Position(at), what)
				}
			}
			ast.Inspect(body, func(node ast.Node) bool {
				if lit, ok := node.(*ast.FuncLit); ok {
					visit("a function literal in "+name, lit.Pos(), lit.Body, covered)
					return false
				}
				return true
			})
		}
		visit(name, fd.Pos(), fd.Body, false)
	}
	if n == 0 {
		t.Fatal("no test drives an outside program: the analysis lost them")
	}
}

// calls reports whether body calls a function or method named in names,
// outside the function literals it holds.
func calls(body *ast.BlockStmt, names map[string]bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch f := n.Fun.(type) {
			case *ast.Ident:
				found = names[f.Name]
			case *ast.SelectorExpr:
				found = names[f.Sel.Name]
			}
		}
		return !found
	})
	return found
}

// firstIsOutside reports whether body's first statement is outside(t).
func firstIsOutside(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	es, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == "outside"
}
