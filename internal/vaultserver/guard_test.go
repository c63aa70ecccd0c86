package vaultserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// TestGuarded: with the server read-only, or its client granted reading
// alone, every tool that writes is refused naming the rule without its
// handler running, and left out of tools/list; the tools that read run
// and are listed; a free client of a server that takes writes has all.
func TestGuarded(t *testing.T) {
	t.Parallel()
	limited := auth.Limit(context.Background(), "the token reads only")
	cases := []struct {
		name  string
		guard auth.Guard
		ctx   context.Context
		rule  string
	}{
		{"read-only server", auth.Guard{Writes: tools.Writes, ReadOnly: readOnlyRule}, context.Background(), readOnlyRule},
		{"limited client", auth.Guard{Writes: tools.Writes}, limited, "the token reads only"},
		{"free client", auth.Guard{Writes: tools.Writes}, context.Background(), ""},
	}
	for _, c := range cases {
		// Every handler records that it ran, in place of the vault.
		var ran []string
		all := tools.All(tools.Vault{})
		for i := range all {
			name := all[i].Tool.Name
			all[i].Handler = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ran = append(ran, name)
				return mcp.NewToolResultText("ran"), nil
			}
		}
		reads, refused := 0, 0
		for _, st := range guarded(all, c.guard) {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.RawArguments = st.Tool.Name, json.RawMessage(`{}`)
			_, err := st.Handler(c.ctx, req)
			if !tools.Writes(st.Tool.Name) {
				reads++
				if err != nil {
					t.Errorf("%s: %s, which reads: %v", c.name, st.Tool.Name, err)
				}
				continue
			}
			e := errors.From(err)
			switch {
			case c.rule == "" && err != nil:
				t.Errorf("%s: %s: %v, want it run", c.name, st.Tool.Name, err)
			case c.rule != "" && (e == nil || e.Kind != errors.PermissionDenied || e.Details["rule"] != c.rule):
				t.Errorf("%s: %s: %v, want PERMISSION_DENIED naming %q", c.name, st.Tool.Name, err, c.rule)
			case c.rule != "":
				refused++
			}
		}
		if c.rule != "" && (refused < 10 || len(ran) != reads) {
			t.Errorf("%s: %d refused, %d of %d handlers ran (%d read): want the reads alone to run", c.name, refused, len(ran), len(all), reads)
		}
		var res mcp.ListToolsResult
		for _, st := range all {
			res.Tools = append(res.Tools, st.Tool)
		}
		listed(c.ctx, &res, c.guard)
		want := len(all)
		if c.rule != "" {
			want = reads
		}
		if len(res.Tools) != want {
			t.Errorf("%s: %d tools listed, want %d", c.name, len(res.Tools), want)
		}
	}
}

// TestGuardOfSeveral: a server of several vaults lists the writes while
// any vault takes them; each vault's calls answer to its own guard.
func TestGuardOfSeveral(t *testing.T) {
	t.Parallel()
	ro := &Server{cfg: Config{ReadOnly: true}}
	alone := &Server{vaultReadOnly: true}
	free := &Server{}
	for _, c := range []struct {
		name   string
		st     *Server
		others []*Server
		want   string
	}{
		{"one read-only", ro, nil, readOnlyRule},
		{"every vault read-only", alone, []*Server{alone}, "--read-only-vaults / OBSIDIAN_MCP_READ_ONLY_VAULTS"},
		{"one vault of two takes writes", alone, []*Server{free}, ""},
		{"the first takes writes", free, []*Server{alone}, ""},
	} {
		st := *c.st
		st.others = c.others
		if got := st.Guard().ReadOnly; got != c.want {
			t.Errorf("%s: the server's guard is read-only by %q, want %q", c.name, got, c.want)
		}
	}
	if got := alone.guard().ReadOnly; got != "--read-only-vaults / OBSIDIAN_MCP_READ_ONLY_VAULTS" {
		t.Errorf("a vault read-only alone: its guard says %q", got)
	}
}

// TestClientName: the change record names the client as it introduced
// itself and, through an HTTP face that checked them, its credentials.
func TestClientName(t *testing.T) {
	t.Parallel()
	if got := clientName(auth.As(context.Background(), "OAuth client claude")); got != "OAuth client claude" {
		t.Errorf("credentials alone: %q", got)
	}
	if got := clientName(context.Background()); got != "" {
		t.Errorf("nothing known: %q", got)
	}
}
