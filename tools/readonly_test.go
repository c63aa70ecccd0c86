package tools

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/access"
)

// TestReadOnly: every tool not annotated read-only is refused, naming the
// rule, without reaching the vault; the read-only ones work as before; and
// the listing keeps only those.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	all := ReadOnly(All(on(fb)), "--read-only")
	var listed mcp.ListToolsResult
	reads := 0
	for _, st := range all {
		listed.Tools = append(listed.Tools, st.Tool)
		if !Writes(st.Tool) {
			reads++
			continue
		}
		_, err := call(t, st, examples[st.Tool.Name])
		e := errors.From(err)
		if e == nil || e.Kind != errors.PermissionDenied || e.Details["rule"] != "--read-only" {
			t.Errorf("%s in read-only mode: %v, want PERMISSION_DENIED naming the rule", st.Tool.Name, err)
		}
	}
	if len(fb.calls) != 0 {
		t.Errorf("refused writes reached the vault: %q", fb.calls)
	}
	if _, err := call(t, findIn(t, all, "obsidian_read_note"), `{"path":"a.md"}`); err != nil {
		t.Errorf("a read in read-only mode: %v", err)
	}
	ListedReadOnly(&listed)
	if len(listed.Tools) != reads || reads < 10 {
		t.Errorf("listed %d tools, want the %d read-only ones", len(listed.Tools), reads)
	}
	for _, name := range []string{"obsidian_create_note", "obsidian_patch_note", "obsidian_delete_note", "obsidian_daily_note", "obsidian_set_property"} {
		for _, tool := range listed.Tools {
			if tool.Name == name {
				t.Errorf("%s is listed in read-only mode", name)
			}
		}
	}
}

// TestGuarded: a request marked read-only (package access: an OAuth token
// granted vault:read) is refused every tool that writes, naming its rule,
// without reaching the vault; an unmarked one is served.
func TestGuarded(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	all := Guarded(All(on(fb)))
	ro := access.WithReadOnly(t.Context(), "the token reads only")
	for _, st := range all {
		if !Writes(st.Tool) {
			continue
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = st.Tool.Name
		req.Params.RawArguments = json.RawMessage(examples[st.Tool.Name])
		_, err := st.Handler(ro, req)
		if e := errors.From(err); e == nil || e.Kind != errors.PermissionDenied || e.Details["rule"] != "the token reads only" {
			t.Errorf("%s, read-only request: %v, want PERMISSION_DENIED naming the rule", st.Tool.Name, err)
		}
	}
	if len(fb.calls) != 0 {
		t.Errorf("refused writes reached the vault: %q", fb.calls)
	}
	if _, err := call(t, findIn(t, all, "obsidian_create_note"), `{"path":"n.md","content":"x"}`); err != nil {
		t.Errorf("a write, unmarked: %v", err)
	}
}
