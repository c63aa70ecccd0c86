package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in scripts/clients), run against every face: serve, the gateway's
// vault namespace, and stdio (this program as a gateway command namespace,
// since the suite speaks HTTP only), directly and through the stdio bridge.
// The scenarios that need the suite's own fixtures, or capabilities this
// server does not claim, are in scripts/conformance/baseline.yml, each with
// its reason; every other scenario must pass, and the suite itself fails
// when a listed one starts passing.

var (
	conformanceBaseline = filepath.Join("..", "..", "scripts", "conformance", "baseline.yml")
	conformanceTotal    = regexp.MustCompile(`Total: (\d+) passed, (\d+) failed`)
	conformancePassed   = regexp.MustCompile(`(?m)^✓ (\S+):`)
)

// bridgePasses are the baseline's scenarios that pass through the stdio
// bridge: as its contract says, a call to a tool it does not have is an
// isError result ("Error: Tool 'test_error_handling' not found"), which
// these two scenarios accept, where a server answers -32602.
var bridgePasses = []string{"tools-call-simple-text", "tools-call-error"}

// conformance runs the suite against url, with the baseline less the
// scenarios in passes, and returns the scenarios that passed.
func conformance(t *testing.T, url string, passes ...string) []string {
	t.Helper()
	suite, err := filepath.Abs(filepath.Join(clientsDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(conformanceBaseline)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- ")), " ")
		if !slices.Contains(passes, name) {
			kept = append(kept, line)
		}
	}
	if len(kept) != len(strings.Split(string(data), "\n"))-len(passes) {
		t.Fatalf("the baseline does not list every one of %v", passes)
	}
	baseline := filepath.Join(t.TempDir(), "baseline.yml")
	if err := os.WriteFile(baseline, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node(t), suite, "server", "--url", url, "--expected-failures", baseline, "-o", t.TempDir())
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Errorf("the conformance suite against %s: %v\n%s", url, err, tail(text, 4000))
	}
	if !strings.Contains(text, "Baseline check passed") {
		t.Errorf("no baseline verdict from the suite:\n%s", tail(text, 4000))
	}
	var passed []string
	for _, m := range conformancePassed.FindAllStringSubmatch(text, -1) {
		passed = append(passed, m[1])
	}
	if m := conformanceTotal.FindStringSubmatch(text); m != nil {
		t.Logf("%s: %d scenarios pass (%s); checks %s passed, %s failed (all in the baseline)", url, len(passed), strings.Join(passed, ", "), m[1], m[2])
	}
	return passed
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestConformance: every face passes every scenario outside the baseline,
// and the same ones.
func TestConformance(t *testing.T) {
	vault := t.TempDir()
	if err := os.Mkdir(filepath.Join(vault, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "Hello.md"), []byte("# Hello\nconformance\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, []string{"--backend", "native", "--vault-path", vault})
	defer s.stop(t)
	g := gateway(t, fmt.Sprintf(`namespaces:
  notes:
    vault_path: %q
  stdio:
    command: %q
    args: [--backend, native, --vault-path, %q]
  bridge:
    command: %q
    args: [bridge, --url, %q, --transport, mcp]
`, vault, binary, vault, binary, s.url))
	defer g.stop(t)
	faces := []struct {
		name, url string
		passes    []string
	}{
		{"serve", s.url, nil},
		{"gateway vault namespace", g.url + "/mcp/notes", nil},
		{"stdio, as a gateway command namespace", g.url + "/mcp/stdio", nil},
		{"the stdio bridge in front of serve, as a gateway command namespace", g.url + "/mcp/bridge", bridgePasses},
	}
	var first []string
	for i, f := range faces {
		t.Run(f.name, func(t *testing.T) {
			passed := slices.DeleteFunc(conformance(t, f.url, f.passes...), func(s string) bool { return slices.Contains(f.passes, s) })
			if i == 0 {
				first = passed
			} else if strings.Join(passed, ",") != strings.Join(first, ",") {
				t.Errorf("%s passes %v; serve passes %v", f.name, passed, first)
			}
		})
	}
}
