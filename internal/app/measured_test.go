package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/benchfigures"
	tooling "github.com/obsidian-mcp/obsidian-mcp/tools"
)

// measuredMarkdown is the README's paragraph of what a model pays for,
// measured on this build: the bytes of tools/list as the server sends
// them, with and without output schemas and for the smallest toolset, and
// of initialize's answer (which carries the server's instructions). The
// README once said "about 21 KB" for a list of 25.9 KB, and "about 26 KB"
// for output schemas of 39.4 KB; now a change of size fails TestREADME
// until the figures are rewritten.
func measuredMarkdown(t *testing.T) string {
	t.Helper()
	line, tools := toolsListed(t)
	full, _ := toolsListed(t, "--output-schemas")
	read, readTools := toolsListed(t, "--tools", "read")
	_, initialized := exchange(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	kb := func(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }
	return fmt.Sprintf("- `tools/list`: **%s** for the %d tools served by default (%d bytes a tool on average); %s with `--tools read` (%d tools).\n"+
		"- `--output-schemas` adds **%s** (the list is then %s).\n"+
		"- `initialize`'s answer, the server's instructions included: %s.\n",
		kb(len(line)), len(tools), len(line)/len(tools), kb(len(read)), len(readTools),
		kb(len(full)-len(line)), kb(len(full)), kb(len(initialized)))
}

// bundleMarkdown is the README's table of what the bundle asks at install,
// from manifest.json: every user_config field, the environment variable it
// becomes (mcp_config.env) and its description. It listed 5 of the
// manifest's 11 settings when it was written by hand.
func bundleMarkdown(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		UserConfig map[string]struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Default     any    `json:"default"`
		} `json:"user_config"`
		Server struct {
			MCPConfig struct {
				Env map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	// The manifest's order is the installer's: read it from the keys'
	// places in the file.
	keys := make([]string, 0, len(m.UserConfig))
	for k := range m.UserConfig {
		keys = append(keys, k)
	}
	at := func(k string) int { return strings.Index(string(data), `"`+k+`": {`) }
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && at(keys[j]) < at(keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	var b strings.Builder
	b.WriteString("   | field | becomes | default | what it does |\n   |---|---|---|---|\n")
	for _, k := range keys {
		f := m.UserConfig[k]
		env := ""
		for name, v := range m.Server.MCPConfig.Env {
			if v == "${user_config."+k+"}" {
				env = name
			}
		}
		if env == "" {
			t.Fatalf("manifest.json: user_config.%s becomes no environment variable", k)
		}
		def := fmt.Sprint(f.Default)
		if def == "" {
			def = "—"
		} else {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "   | %s | `%s` | %s | %s |\n", f.Title, env, def, strings.ReplaceAll(f.Description, "|", `\|`))
	}
	return b.String()
}

// TestMeasuredCountsTools: the measured paragraph speaks of the tools the
// server lists by default, which the registry says.
func TestMeasuredCountsTools(t *testing.T) {
	t.Parallel()
	md := measuredMarkdown(t)
	want := fmt.Sprintf("for the %d tools served by default", len(tooling.WithoutCommands(tooling.All(tooling.Vault{}))))
	if !strings.Contains(md, want) {
		t.Errorf("%q lacks %q", md, want)
	}
}

// headlineMarkdown is the README's opening claims, from docs/figures.json,
// which `make bench` (scripts/benchrun -figures) writes from the run that
// measured them: the paragraph changes only with a run.
func headlineMarkdown(t *testing.T, root string) string {
	t.Helper()
	f, err := benchfigures.Read(filepath.Join(root, "docs", "figures.json"))
	if err != nil {
		t.Fatal(err)
	}
	times := func(r [2]float64) string {
		one := func(x float64) string {
			if x < 10 {
				return strconv.FormatFloat(x, 'f', 1, 64)
			}
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		if one(r[0]) == one(r[1]) {
			return one(r[0]) + "×"
		}
		return one(r[0]) + "–" + one(r[1]) + "×"
	}
	mbs := func(r [2]float64) string {
		if int(r[0]+0.5) == int(r[1]+0.5) {
			return fmt.Sprintf("%.0f MB", r[0])
		}
		return fmt.Sprintf("%.0f–%.0f MB", r[0], r[1])
	}
	var others []string
	for name, hits := range f.PeersTop3 {
		others = append(others, fmt.Sprintf("%s: %d", strings.Fields(name)[0], hits))
	}
	slices.Sort(others)
	return fmt.Sprintf("Measured beside %d Node-based MCP servers (`make bench`, one run on 2 cores, %s), it answers `initialize` %s\n"+
		"sooner than they do, idles at %s against their %s, and reads a note over stdio at %s their speed. On a\n"+
		"%s-note vault its ranked search answers in %.0f ms, %s faster than the peers that search, and finds the labelled\n"+
		"note in the top 3 for %d of %d queries (%s).\n",
		len(f.Peers), f.Measured, times(f.Initialize), mbs(f.IdleMB), mbs(f.PeersIdleMB), times(f.Read),
		thousands(f.SearchNotes), f.SearchMS, times(f.Search), f.Top3, f.Queries, strings.Join(others, "; "))
}

// thousands writes n with a comma between thousands, as the README does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
