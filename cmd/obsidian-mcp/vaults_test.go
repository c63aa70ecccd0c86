package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// TestSeveralVaults: one stdio server on two vaults, through the Go SDK:
// each tool takes vault, each vault keeps its own notes, index and
// .mcpignore, and a vault that is not served is refused naming it.
func TestSeveralVaults(t *testing.T) {
	t.Parallel()
	work, home := t.TempDir(), t.TempDir()
	files := map[string]string{
		filepath.Join(work, "Notes", "A.md"):      "alpha lighthouse",
		filepath.Join(work, "Private", "S.md"):    "work secret",
		filepath.Join(home, "Notes", "B.md"):      "beta lighthouse",
		filepath.Join(home, "Private", "S.md"):    "home secret",
		filepath.Join(home, ".mcpignore"):         "Private/\n",
		filepath.Join(home, "Boards", "B.canvas"): `{"nodes":[],"edges":[]}`,
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs, stderr := goSDK(t, time.Minute, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT=Work="+work+";Home="+home, "OBSIDIAN_MCP_READ_ONLY_VAULTS=home")
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if tl.Name == "obsidian_read_note" && !strings.Contains(string(schema), `"vault":{"description":"The vault (obsidian_list_vaults); default Work.","enum":["Work","Home"],"type":"string"}`) {
			t.Errorf("read_note's schema has no vault: %s", schema)
		}
	}
	if !slices.Contains(names, "obsidian_list_vaults") || !slices.Contains(names, "obsidian_append_to_note") || len(names) != len(tools.WithoutCommands(tools.All(tools.Vault{})))+1 {
		t.Errorf("%d tools: %v", len(names), names)
	}
	call := func(args map[string]any, tool string) outcome {
		return goOutcome(cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args}))
	}
	steps := []struct {
		tool  string
		args  map[string]any
		check func(string, outcome) error
	}{
		{"obsidian_list_vaults", map[string]any{}, wantAt("Home", "vaults", 1, "name")},
		{"obsidian_read_note", map[string]any{"path": "Notes/A.md"}, wantContentText("alpha lighthouse")},
		{"obsidian_read_note", map[string]any{"path": "Notes/B.md", "vault": "Home"}, wantContentText("beta lighthouse")},
		{"obsidian_read_note", map[string]any{"path": "Notes/A.md", "vault": "home"}, wantError(-32003, "FILE_NOT_FOUND", "Notes/A.md")},
		{"obsidian_read_note", map[string]any{"path": "Notes/A.md", "vault": "Attic"}, wantError(-32602, "INVALID_PARAMS", "use one of Work, Home")},
		{"obsidian_search_notes", map[string]any{"query": "lighthouse", "vault": "Home"}, wantAt("Notes/B.md", "results", 0, "path")},
		{"obsidian_read_note", map[string]any{"path": "Private/S.md"}, wantContentText("work secret")},
		{"obsidian_read_note", map[string]any{"path": "Private/S.md", "vault": "Home"}, wantError(-32005, "PERMISSION_DENIED", "Private")},
		{"obsidian_read_canvas", map[string]any{"path": "Boards/B.canvas", "vault": "Home"}, wantData("path", "Boards/B.canvas")},
		{"obsidian_append_to_note", map[string]any{"path": "Notes/B.md", "content": "x", "vault": "Home"}, wantError(-32005, "PERMISSION_DENIED", "OBSIDIAN_MCP_READ_ONLY_VAULTS")},
		{"obsidian_append_to_note", map[string]any{"path": "Notes/A.md", "content": "more"}, wantData("path", "Notes/A.md")},
	}
	for _, s := range steps {
		if err := s.check("go-sdk", call(s.args, s.tool)); err != nil {
			t.Errorf("%s %v: %v", s.tool, s.args, err)
		}
	}
	if !strings.Contains(stderr.String(), "vault_arg=Home tool=obsidian_search_notes") {
		t.Errorf("the log does not name the vault a call chose")
	}
	if got, _ := os.ReadFile(filepath.Join(home, "Notes", "B.md")); string(got) != "beta lighthouse" {
		t.Errorf("the read-only vault's note was changed: %q", got)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// wantContentText wants a read's content.
func wantContentText(content string) func(string, outcome) error {
	return func(tool string, o outcome) error {
		if o.Result == nil || o.Result.StructuredContent["content"] != content {
			return fmt.Errorf("%s: want the content %q, got %s", tool, content, o)
		}
		return nil
	}
}
