package layout

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/fzipp/gocyclo"
)

// maxComplexity bounds a function's cyclomatic complexity (gocyclo's
// count: one, plus one per if, for, case, && and ||). Past it a function
// holds more paths than a reader can keep in mind, and its test cannot
// reach them all: split it into steps whose names say what they do.
const maxComplexity = 30

// overComplex are the functions over maxComplexity today, by file and
// name, with their complexity when the bound came in. The list only shrinks: a function
// that grows past its figure fails, and one that drops to the bound must
// leave the list.
var overComplex = map[string]int{
	"vaultindex/search.go (*Index).searchText":                      41,
	"internal/transport/mcphttp/post.go (*Endpoint).streamablePost": 35,
}

// TestComplexity fails for a function over maxComplexity that is not on
// the list, or over its figure there, and for a listed function that no
// longer needs to be.
func TestComplexity(t *testing.T) {
	fset := token.NewFileSet()
	var stats gocyclo.Stats
	for path := range sources(t, "") {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		stats = gocyclo.AnalyzeASTFile(f, fset, stats)
	}
	seen := map[string]bool{}
	for _, s := range stats {
		rel, _ := filepath.Rel(root, s.Pos.Filename)
		name := filepath.ToSlash(rel) + " " + s.FuncName
		allowed, listed := overComplex[name]
		seen[name] = listed
		switch {
		case s.Complexity > maxComplexity && !listed:
			t.Errorf("%s: %s has cyclomatic complexity %d, over %d: split it into steps whose names say what they do", s.Pos, name, s.Complexity, maxComplexity)
		case listed && s.Complexity > allowed:
			t.Errorf("%s: %s grew to complexity %d, past its %d on the list: the list only shrinks", s.Pos, name, s.Complexity, allowed)
		case listed && s.Complexity <= maxComplexity:
			t.Errorf("%s: %s is down to complexity %d: take it off overComplex", s.Pos, name, s.Complexity)
		}
	}
	for name := range overComplex {
		if !seen[name] {
			t.Errorf("%s is on overComplex but no such function was found: take it off", name)
		}
	}
}
