package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
	tooling "github.com/obsidian-mcp/obsidian-mcp/tools"
)

func TestLoggerPlainWhenNotATerminal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	NewLogger(&b, slog.LevelInfo).Info("tool call", "tool", "obsidian_read_note", "outcome", "ok")
	NewLogger(&b, slog.LevelInfo).Debug("hidden at info")
	got := b.String()
	if strings.Contains(got, "\x1b[") || !strings.Contains(got, "tool=obsidian_read_note") || strings.Contains(got, "hidden") {
		t.Errorf("log output = %q; want plain text at info level", got)
	}
}

// TestHelpAndCommands: every command has its own --help, the top one
// lists them all, and a word that is no command is refused, with the
// command it was probably meant to be.
func TestHelpAndCommands(t *testing.T) {
	t.Parallel()
	run := func(args ...string) (int, string, string) {
		var out, errs strings.Builder
		code := Main(context.Background(), args, func(string) string { return "" }, Streams{In: strings.NewReader(""), Out: &out, Err: &errs}, "1.0.0")
		return code, out.String(), errs.String()
	}
	for _, tc := range []struct {
		args        []string
		want, lacks []string
	}{
		{[]string{"--help"}, []string{"obsidian-mcp gateway [flags]", "obsidian-mcp serve [flags]", "--vault-path", "Each command has its own --help"}, []string{"--listen", "OBSIDIAN_MCP_API_KEY"}},
		{[]string{"help"}, []string{"obsidian-mcp doctor [flags]"}, nil},
		{[]string{"serve", "--help"}, []string{"obsidian-mcp serve: the tools of obsidian-mcp over HTTP", "--listen", "OBSIDIAN_MCP_API_KEY", "--vault-path"}, []string{"over stdio."}},
		{[]string{"bridge", "--help"}, []string{"obsidian-mcp bridge: a stdio MCP server in front of an HTTP one"}, nil},
		{[]string{"gateway", "--help"}, []string{"obsidian-mcp gateway: many vaults and stdio MCP servers"}, nil},
		{[]string{"doctor", "--help"}, []string{"Usage: obsidian-mcp doctor [flags]", "--listen", "--gateway", "Exits 0 when"}, []string{"obsidian-mcp serve: the tools", "--cors-origin"}},
	} {
		code, out, errs := run(tc.args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in:\n%s", tc.args, w, out)
			}
		}
		for _, w := range tc.lacks {
			if strings.Contains(out, w) {
				t.Errorf("%v: %q is not this command's:\n%s", tc.args, w, out)
			}
		}
	}
	for word, want := range map[string]string{
		"server":  `unknown command "server"; did you mean "serve"?`,
		"gatway":  `did you mean "gateway"?`,
		"doctr":   `did you mean "doctor"?`,
		"xyzzy":   `unknown command "xyzzy"`,
		"briddge": `did you mean "bridge"?`,
		"oath":    `did you mean "oauth"?`,
	} {
		code, out, errs := run(word)
		if code != 2 || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, "the commands are serve, bridge, gateway, doctor, history and oauth") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", word, code, errs, want)
		}
	}
	if _, _, errs := run("xyzzy"); strings.Contains(errs, "did you mean") {
		t.Errorf("a suggestion for a word like no command: %s", errs)
	}
}

// toolsListed is the tools/list answer of a native server on an empty
// vault started with extra, as sent (one line), and its tools.
func toolsListed(t *testing.T, extra ...string) (string, []mcp.Tool) {
	t.Helper()
	line, _ := exchange(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, extra...)
	var r struct {
		Result struct{ Tools []mcp.Tool } `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	return line, r.Result.Tools
}

// exchange initializes a native server on an empty vault started with
// extra, sends it req (id 2), and returns the answer to req and to
// initialize, each one line as sent.
func exchange(t *testing.T, req string, extra ...string) (answer, initialized string) {
	t.Helper()
	cfg, err := vaultserver.ParseConfig(append([]string{"--backend", "native", "--vault-path", t.TempDir()}, extra...), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" + req + "\n")
	var out strings.Builder
	if err := Serve(t.Context(), cfg, in, &out, slog.New(slog.DiscardHandler), "test"); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.Contains(line, `"id":2,`):
			answer = line
		case strings.Contains(line, `"id":1,`):
			initialized = line
		}
	}
	if answer == "" || initialized == "" {
		t.Fatalf("no answer to %s: %s", req, out.String())
	}
	return answer, initialized
}

// TestToolListBudget: the whole tool list a model pays for before the user
// asks anything stays within about 700 bytes a tool, 24 KB for 35 tools
// (it was 68 KB with output schemas and
// every shared parameter explained in every tool); --output-schemas adds
// the schemas back for clients that use them.
func TestToolListBudget(t *testing.T) {
	t.Parallel()
	list := func(extra ...string) (string, []mcp.Tool) { return toolsListed(t, extra...) }
	// 24 KB for the 35 tools it was set for: about 700 bytes a tool, on
	// average, whatever their number (a tool added pays its own way, a
	// wordier one is refused).
	const perTool = (24 << 10) / 35
	line, tools := list()
	if want := len(tooling.WithoutCommands(tooling.All(tooling.Vault{}))); len(tools) != want || len(line) > perTool*len(tools) {
		t.Errorf("tools/list is %d bytes for %d tools, want at most %d bytes a tool for the %d served by default", len(line), len(tools), perTool, want)
	}
	for _, tl := range tools {
		if tl.OutputSchema.Type != "" || tl.RawOutputSchema != nil {
			t.Errorf("%s has an output schema without --output-schemas", tl.Name)
		}
	}
	full, tools := list("--output-schemas")
	for _, tl := range tools {
		if tl.OutputSchema.Type != "object" {
			t.Errorf("%s has no output schema with --output-schemas", tl.Name)
		}
	}
	t.Logf("tools/list: %d bytes, %d with --output-schemas", len(line), len(full))
}

// TestToolsetsServed: a server given --tools read lists those tools alone,
// and a call to another is refused as a tool it does not have.
func TestToolsetsServed(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "A.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := vaultserver.ParseConfig([]string{"--backend", "native", "--vault-path", vault, "--tools", "read"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_append_to_note","arguments":{"path":"A.md","content":"x"}}}` + "\n")
	var out strings.Builder
	if err := Serve(t.Context(), cfg, in, &out, slog.New(slog.DiscardHandler), "test"); err != nil {
		t.Fatal(err)
	}
	var list, refused string
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.Contains(line, `"id":2,`):
			list = line
		case strings.Contains(line, `"id":3,`):
			refused = line
		}
	}
	if n := strings.Count(list, `"name":"obsidian_`); n != len(tooling.ToolsetTools("read")) || !strings.Contains(list, "obsidian_read_note") || strings.Contains(list, "obsidian_append_to_note") {
		t.Errorf("tools/list with --tools read: %d tools: %.300s", n, list)
	}
	if !strings.Contains(refused, `"error"`) || !strings.Contains(refused, "obsidian_append_to_note") {
		t.Errorf("a call to a tool left out: %.300s", refused)
	}
	if got, _ := os.ReadFile(filepath.Join(vault, "A.md")); string(got) != "a" {
		t.Errorf("the note was changed: %q", got)
	}
}

// TestOneVersion: the version every build reports is manifest.json's:
// make build and the bundle stamp it from there, and a binary built with
// nothing stamped (go install at a commit) finds it in Version. A release
// tag says the same; a pseudo-version is no release.
func TestOneVersion(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(data, &m); err != nil || m.Version != Version {
		t.Errorf("manifest.json's version %q (%v), internal/app.Version %q: make them the same", m.Version, err, Version)
	}
	for stamped, want := range map[string]string{"": Version, "dev": Version, "1.2.3": "1.2.3"} {
		if got := resolveVersion(stamped); got != want {
			t.Errorf("resolveVersion(%q) = %q, want %q", stamped, got, want)
		}
	}
	for v, want := range map[string]bool{"0.1.0": true, "12.0.3": true, "0.0.0-20261127053000-0be7482abcd1": false, "0.1.0-rc.1": false, "0.1": false} {
		if isRelease(v) != want {
			t.Errorf("isRelease(%q) = %v", v, !want)
		}
	}
}
