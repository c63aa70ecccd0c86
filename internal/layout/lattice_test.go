package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// lattice places every package of the module, on purpose. A rule
// "a, b < c, d" says c and d may import a and b and whatever those may
// import; a package imports only what the rules allow it, and a package
// no rule names fails TestLattice until it is placed. Rules are read top
// to bottom, so a name is placed before it is used on the left. Names in
// capitals are groups: placed like packages, imported by none.
const lattice = `
# NONE is nothing: the leaves stand on it.
NONE < errors, yamltext, links, evalbudget, jsregex;

# The domain: what a vault is made of. No engine, tool, face or server.
errors, yamltext, links < note;
note < metadata, policy, tasks, canvas;
metadata, policy, tasks, canvas, evalbudget, jsregex < bases, patch, prompts;
# Dataview's engine reads notes itself (its own view of their structure).
links, evalbudget, jsregex < dataview;
bases, patch, prompts, dataview < DOMAIN;

# Files written whole, and the state folder: below the engines, beside
# anything else that keeps a file. The change record, which every write
# of the engine goes through, holds its segments with the state folder's
# file locks.
errors < internal/atomicfile, native/statedir;
note, native/statedir < internal/changes;

# The two engines, siblings: the folder (with its search index) and the
# app's CLI.
DOMAIN < vaultindex;
vaultindex, internal/atomicfile, native/statedir, internal/changes < native;
DOMAIN < obsidiancli;

# The tools know the domain and their engines' interfaces only.
DOMAIN < tools;

# Who may do what, decided once: the guard and the grant a request
# carries; tokens, scopes and a resource's metadata.
errors < internal/auth, internal/auth/oauth;

# Below every face: the protocol core, settings, doctor's words, the
# stop signal, OAuth's shared parts.
errors < internal/protocol, internal/settings, internal/doctor, internal/shutdown, internal/bridge/upstream;

# Transports carry the protocol; they know no vault, engine or tool.
internal/protocol < internal/transport/stdio, internal/transport/mcphttp, internal/transport/bridgev1,
                    internal/transport/envelope;
# An HTTP face's token check: between the MCP endpoint, whose messages
# it screens, and the faces that take tokens.
internal/auth, internal/auth/oauth, internal/transport/mcphttp < internal/auth/bearer;
internal/transport/mcphttp, internal/transport/bridgev1, internal/transport/envelope,
# The page of what was changed: a file the HTTP faces serve.
NONE < internal/historypage;
internal/auth/bearer, internal/historypage < internal/transport/httpapi;
internal/transport/stdio, internal/transport/httpapi < TRANSPORT;

# The vault's server: the engines behind the router, the tools, the
# prompts; it knows no transport.
native, obsidiancli, tools < internal/backend;
internal/backend, internal/protocol, internal/settings, internal/doctor, internal/auth < internal/vaultserver;

# The other servers: the authorization server, serve (the vault's server
# over HTTP), the bridge, the gateway.
internal/auth/oauth, internal/atomicfile, internal/settings < internal/auth/authserver;
internal/vaultserver, internal/auth/authserver, TRANSPORT < internal/serve;
internal/bridge/upstream, internal/doctor, internal/settings, TRANSPORT < internal/bridge;
internal/doctor, internal/settings, internal/auth/authserver, TRANSPORT < internal/gateway;

# The wiring, and the program.
internal/serve, internal/bridge, internal/gateway, internal/shutdown < internal/app;
internal/app < cmd/obsidian-mcp;

# Test support and measurement, which the program never imports.
errors < internal/testenv, internal/hostile, internal/leasetest, internal/vaultgen, internal/layout,
         internal/conformance;
native < internal/obsidiantest < internal/obsidiantest/fakecli;
NONE < internal/benchfigures;
internal/obsidiantest, internal/vaultgen, internal/benchfigures < scripts/benchrun;
native, internal/vaultgen < scripts/relevance, scripts/httpload, scripts/dataviewbench;
errors < scripts/benchrun/floor, scripts/bundlecheck, scripts/installcheck;
`

// never are imports no rule may allow, however the lattice grows: a
// prefix ends with "/" for everything under it. They are checked on the
// lattice, so a rule that allowed one fails before any code uses it.
var never = []struct{ from, to, why string }{
	{"internal/transport/", "internal/vaultserver", "a transport carries the protocol and knows no vault"},
	{"internal/transport/", "native", "a transport knows no engine"},
	{"internal/transport/", "obsidiancli", "a transport knows no engine"},
	{"internal/transport/", "tools", "a transport knows no tool"},
	{"internal/protocol", "tools", "the protocol core knows no tool"},
	{"internal/protocol", "internal/vaultserver", "the protocol core knows no vault"},
	{"tools", "native", "the tools know no engine"},
	{"tools", "obsidiancli", "the tools know no engine"},
	{"tools", "internal/", "the tools know no server, transport, backend or guard: they are the vault's"},
	{"internal/auth", "native", "who may do what knows no engine"},
	{"internal/auth", "tools", "who may do what knows no tool: the server answers which write"},
	{"native", "obsidiancli", "the engines are siblings"},
	{"obsidiancli", "native", "the engines are siblings"},
	{"obsidiancli", "vaultindex", "the engines are siblings"},
}

// placed reads the lattice into what each name may import.
func placed(t *testing.T, text string) map[string]map[string]bool {
	t.Helper()
	may := map[string]map[string]bool{"NONE": {}}
	for i, rule := range strings.Split(stripComments(text), ";") {
		if strings.TrimSpace(rule) == "" {
			continue
		}
		var below map[string]bool
		for j, side := range strings.Split(rule, "<") {
			names := strings.FieldsFunc(side, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
			if len(names) == 0 {
				t.Fatalf("rule %d: an empty side in %q", i+1, strings.TrimSpace(rule))
			}
			next := map[string]bool{}
			for _, n := range names {
				if j == 0 {
					if _, ok := may[n]; !ok {
						t.Fatalf("rule %d: %s is used before a rule places it", i+1, n)
					}
				} else {
					if _, ok := may[n]; ok {
						t.Fatalf("rule %d: %s is placed twice", i+1, n)
					}
					may[n] = map[string]bool{}
					for b := range below {
						may[n][b] = true
						for bb := range may[b] {
							may[n][bb] = true
						}
					}
				}
				next[n] = true
			}
			below = next
		}
	}
	return may
}

func stripComments(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		b.WriteString(line + "\n")
	}
	return b.String()
}

// otherModule reports whether pkg lies in a module of its own inside the
// repository (scripts/blevecompare keeps bleve out of go.mod).
func otherModule(pkg string) bool {
	for p := pkg; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p), "go.mod")); err == nil {
			return true
		}
	}
	return false
}

func matches(pkg, pattern string) bool {
	if strings.HasSuffix(pattern, "/") {
		return strings.HasPrefix(pkg, pattern)
	}
	return pkg == pattern || strings.HasPrefix(pkg, pattern+"/")
}

// TestLattice fails for a package the lattice does not place, an import
// it does not allow, and a rule that allows what never forbids.
func TestLattice(t *testing.T) {
	may := placed(t, lattice)
	for from, allowed := range may {
		for _, n := range never {
			if !matches(from, n.from) {
				continue
			}
			for to := range allowed {
				if matches(to, n.to) {
					t.Errorf("the lattice lets %s import %s: %s", from, to, n.why)
				}
			}
		}
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for path := range sources(t, "") {
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if otherModule(pkg) {
			continue
		}
		allowed, ok := may[pkg]
		if !ok {
			if !seen[pkg] {
				t.Errorf("%s is not in the lattice (internal/layout/lattice_test.go): place it, below what imports it and above what it imports", pkg)
			}
			seen[pkg] = true
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			ours, ok := strings.CutPrefix(p, module)
			if !ok || ours == pkg {
				continue
			}
			if !allowed[ours] {
				t.Errorf("%s imports %s, which the lattice does not allow it: if it belongs there, say so in a rule (and check the never list)", fset.Position(imp.Pos()), ours)
			}
		}
	}
}
