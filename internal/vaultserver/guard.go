package vaultserver

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// readOnlyRule names the setting that makes the server read-only, for the
// errors that refuse a write.
const readOnlyRule = "--read-only / OBSIDIAN_MCP_READ_ONLY"

// guard is this vault's: its writes refused while it is read-only (the
// setting named) or its client was granted reading alone.
func (st *Server) guard() auth.Guard {
	g := auth.Guard{Writes: tools.Writes}
	switch {
	case st.vaultReadOnly:
		g.ReadOnly = "--read-only-vaults / OBSIDIAN_MCP_READ_ONLY_VAULTS"
	case st.cfg.ReadOnly:
		g.ReadOnly = readOnlyRule
	}
	return g
}

// Guard is the server's as a whole, which the tool list and an HTTP
// face's scope challenge ask: of several vaults, read-only when every one
// is (each vault's calls are refused by its own, guard).
func (st *Server) Guard() auth.Guard {
	g := st.guard()
	for _, o := range st.others {
		if o.guard().ReadOnly == "" {
			g.ReadOnly = ""
		}
	}
	return g
}

// guarded returns all with the handler of every tool that guard may
// refuse wrapped (a tool that writes): a refused call never reaches the
// vault, and its error names the rule.
func guarded(all []server.ServerTool, guard auth.Guard) []server.ServerTool {
	out := slices.Clone(all)
	for i, st := range out {
		if guard.Writes == nil || !guard.Writes(st.Tool.Name) {
			continue
		}
		name, next := st.Tool.Name, st.Handler
		out[i].Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if no := guard.Check(ctx, name); no != nil {
				return nil, errors.E(errors.PermissionDenied, "%s changes the vault, and this server is read-only (%s); nothing was changed", name, no.Rule).
					With("rule", no.Rule).WithHint("Ask the user to turn off read-only mode if the change is wanted.")
			}
			return next(ctx, req)
		}
	}
	return out
}

// listed leaves out of a tools/list answer what guard refuses the
// request: a client is not shown tools it cannot call.
func listed(ctx context.Context, res *mcp.ListToolsResult, guard auth.Guard) {
	res.Tools = slices.DeleteFunc(res.Tools, func(t mcp.Tool) bool { return guard.Check(ctx, t.Name) != nil })
}
