package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// fileChangers are the calls that make, change or remove a file by its
// path string. Inside a vault, a path string walks through whatever links
// the vault brought with it; the engine reaches the vault's files through
// its os.Root and the state folder's through statedir's handle.
var fileChangers = map[string]bool{
	"os.Remove": true, "os.RemoveAll": true, "os.OpenFile": true, "os.Create": true, "os.Mkdir": true,
	"os.MkdirAll": true, "os.Rename": true, "os.WriteFile": true, "os.Symlink": true, "os.Link": true,
	"os.Chmod": true, "os.Chtimes": true, "os.Truncate": true, "os.Lchown": true, "os.Chown": true,
	"os.CreateTemp": true, "os.MkdirTemp": true, "flock.New": true,
}

// outsideTheVault are the files of native/ that change files by path, and
// why each is not in a vault: the user's own folders, named by the
// system, and the system's temporary folder.
var outsideTheVault = map[string]string{
	"native/indexstore.go": "the saved search index, in the user's cache folder (os.UserCacheDir)",
	"native/journalkey.go": "the journal key, in the user's configuration folder (os.UserConfigDir)",
	"native/watch.go":      "the watcher's sentinel files, in the system's temporary folder",
}

// TestNativeReachesFilesByHandle fails when code under native/ (outside
// native/statedir, which walks the state folder by handle) makes, changes
// or removes a file by a path string, except in the files listed in
// outsideTheVault, which never touch a vault. (A vault that arrived with
// .obsidian-mcp/displaced -> .. once lost every top-level folder to a
// sweep that removed folders by path.)
func TestNativeReachesFilesByHandle(t *testing.T) {
	fset := token.NewFileSet()
	for path := range sources(t, "native/statedir") {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "native/") || outsideTheVault[rel] != "" {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		packageCalls(f, func(call *ast.CallExpr, name string) {
			if fileChangers[name] {
				t.Errorf("%s: %s by a path string: reach a vault's files through the engine's os.Root, and the state folder's through native/statedir",
					fset.Position(call.Pos()), name)
			}
		})
	}
}
