package main

import (
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestCommandsOptIn: the app's commands are served only with
// OBSIDIAN_MCP_COMMANDS=true; then a Go SDK client lists and runs them,
// and an unknown id is refused naming it.
func TestCommandsOptIn(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	names := func(cs *mcp.ClientSession) []string {
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range list.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	off, _ := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin)
	if n := names(off); slices.Contains(n, "obsidian_run_command") || slices.Contains(n, "obsidian_list_commands") {
		t.Errorf("commands served without being asked for: %v", n)
	}
	on, stderr := goSDK(t, time.Minute, "OBSIDIAN_BIN="+f.Bin, "OBSIDIAN_MCP_COMMANDS=true")
	if n := names(on); !slices.Contains(n, "obsidian_run_command") || !slices.Contains(n, "obsidian_list_commands") {
		t.Errorf("commands not served with OBSIDIAN_MCP_COMMANDS=true: %v", n)
	}
	call := func(tool string, args map[string]any) outcome {
		return goOutcome(on.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args}))
	}
	for _, s := range []struct {
		tool  string
		args  map[string]any
		check func(string, outcome) error
	}{
		{"obsidian_list_commands", map[string]any{}, wantAt("app:reload", "items", 0, "id")},
		{"obsidian_list_commands", map[string]any{"filter": "daily"}, wantAt("Open today's daily note", "items", 0, "name")},
		{"obsidian_run_command", map[string]any{"id": "editor:save-file"}, wantData("output", "Executed: editor:save-file")},
		{"obsidian_run_command", map[string]any{"id": "nope:x"}, wantError(-32602, "INVALID_PARAMS", "`id`")},
	} {
		if err := s.check("go-sdk", call(s.tool, s.args)); err != nil {
			t.Errorf("%s %v: %v", s.tool, s.args, err)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}
