package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/hostile"
)

// TestStateFolderLayoutsOnEveryFace: on stdio (a server process per
// vault) and through a gateway (a vault namespace per vault), a vault
// that arrived with a link or a file planted in its state folder
// (hostile.Layouts) keeps every file outside that folder, in the vault
// and beside it, through an append and a tag rename; where the write lock
// itself is a link, the write is refused naming it. (Before the state
// folder was walked by handle, a vault with .obsidian-mcp/displaced -> ..
// lost every top-level folder at its first write, and the append
// answered success.)
func TestStateFolderLayoutsOnEveryFace(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	type vault struct {
		base, dir string
		layout    hostile.Layout
		before    map[string]string
	}
	make := func(t *testing.T) []vault {
		var vs []vault
		for _, l := range hostile.Layouts {
			base := t.TempDir()
			v := vault{base: base, dir: filepath.Join(base, "vault"), layout: l}
			if err := hostile.Make(v.dir, filepath.Join(base, "outside"), l); err != nil {
				t.Fatal(err)
			}
			v.before, _ = hostile.Snapshot(base)
			vs = append(vs, v)
		}
		return vs
	}
	check := func(t *testing.T, v vault, cs *mcp.ClientSession) {
		t.Helper()
		_, o := toolCall(t, cs, "obsidian_append_to_note", map[string]any{"path": "top.md", "content": "more"})
		_, _ = toolCall(t, cs, "obsidian_rename_tag", map[string]any{"from": "proj", "to": "done"})
		after, _ := hostile.Snapshot(v.base)
		if v.layout.Refused != "" {
			if o.Error == nil || o.Error.Data["errorCode"] != "PERMISSION_DENIED" || !strings.Contains(o.Error.Message, v.layout.Refused) {
				t.Errorf("%s: append %s, want PERMISSION_DENIED naming %s", v.layout.Name, brief(o), v.layout.Refused)
			}
			if d := hostile.Changed(v.before, after); len(d) > 0 {
				t.Errorf("%s: changed %v", v.layout.Name, d)
			}
			return
		}
		if o.Error != nil || o.Result == nil || o.Result.IsError {
			t.Errorf("%s: append %s", v.layout.Name, brief(o))
		}
		if d := hostile.Changed(v.before, after, "vault/top.md", "vault/Notes/a.md"); len(d) > 0 {
			t.Errorf("%s: changed outside the state folder: %v", v.layout.Name, d)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		for _, v := range make(t) {
			check(t, v, nativeServer(t, v.dir))
		}
	})
	t.Run("gateway", func(t *testing.T) {
		vs := make(t)
		var yaml strings.Builder
		yaml.WriteString("namespaces:\n")
		for i, v := range vs {
			fmt.Fprintf(&yaml, "  l%d:\n    vault_path: %s\n    backend: native\n", i, v.dir)
		}
		g := gateway(t, yaml.String())
		for i, v := range vs {
			check(t, v, connectHTTP(t, fmt.Sprintf("%s/mcp/l%d", g.url, i), g))
		}
	})
}
