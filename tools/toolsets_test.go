package tools

import (
	"slices"
	"strings"
	"testing"
)

// TestToolsets: every tool is in exactly one toolset, every toolset's
// tools exist, Select keeps just the sets named, and an unknown name is
// refused naming the ones that exist.
func TestToolsets(t *testing.T) {
	t.Parallel()
	all := All(Vault{})
	seen := map[string]string{}
	for _, ts := range Toolsets {
		if len(ToolsetTools(ts.Name)) == 0 {
			t.Errorf("toolset %s has no tool", ts.Name)
		}
		for _, name := range ToolsetTools(ts.Name) {
			if other, dup := seen[name]; dup {
				t.Errorf("%s is in %s and %s", name, other, ts.Name)
			}
			seen[name] = ts.Name
		}
	}
	for _, st := range all {
		if seen[st.Tool.Name] == "" {
			t.Errorf("%s is in no toolset", st.Tool.Name)
		}
		delete(seen, st.Tool.Name)
	}
	for name := range seen {
		t.Errorf("toolset tool %s does not exist", name)
	}
	names := func(sel []string) []string {
		var out []string
		for _, st := range Select(all, sel) {
			out = append(out, st.Tool.Name)
		}
		return out
	}
	if got := names(nil); len(got) != len(all) {
		t.Errorf("no toolsets named: %d tools, want all %d", len(got), len(all))
	}
	if got := names([]string{"all"}); len(got) != len(all) {
		t.Errorf("all: %d tools", len(got))
	}
	read := names([]string{"read"})
	if !slices.Contains(read, "obsidian_read_note") || slices.Contains(read, "obsidian_append_to_note") {
		t.Errorf("read: %v", read)
	}
	// Just the tools whose spec names one of the sets, in registry order.
	for _, sets := range [][]string{{"read"}, {"read", "edit"}, {"canvas", "daily"}} {
		var want []string
		for _, e := range registry() {
			if f := e.facts(); slices.Contains(sets, f.toolset) {
				want = append(want, f.name)
			}
		}
		if got := names(sets); !slices.Equal(got, want) {
			t.Errorf("%v: %v, want %v", sets, got, want)
		}
	}
	if err := CheckToolsets([]string{"read", "writes"}); err == nil || !strings.Contains(err.Error(), `"writes" is no toolset: use all, or some of read, graph, edit, files, daily`) {
		t.Errorf("an unknown toolset: %v", err)
	}
}
