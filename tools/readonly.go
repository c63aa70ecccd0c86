package tools

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/access"
)

// Writes reports whether a tool may change the vault: every tool not
// annotated read-only, so that a tool added later is refused in read-only
// mode unless it says it changes nothing.
func Writes(t mcp.Tool) bool {
	return t.Annotations.ReadOnlyHint == nil || !*t.Annotations.ReadOnlyHint
}

// ReadOnly returns all with the handler of every tool that Writes replaced
// by a refusal naming rule (the setting that made the server read-only).
// The server leaves those tools out of tools/list (ListedReadOnly); a
// client that calls one anyway learns why it cannot.
func ReadOnly(all []server.ServerTool, rule string) []server.ServerTool {
	return guardWrites(all, func(context.Context) (string, bool) { return rule, true })
}

// Guarded returns all with every tool that Writes refusing a request that
// is read-only (package access: an OAuth token granted reading alone), as
// ReadOnly refuses every request.
func Guarded(all []server.ServerTool) []server.ServerTool { return guardWrites(all, access.ReadOnly) }

// guardWrites wraps the handler of every tool that Writes: refused when
// readOnly says so for the request, naming its rule.
func guardWrites(all []server.ServerTool, readOnly func(context.Context) (string, bool)) []server.ServerTool {
	out := slices.Clone(all)
	for i, st := range out {
		if !Writes(st.Tool) {
			continue
		}
		name, next := st.Tool.Name, st.Handler
		out[i].Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if rule, ok := readOnly(ctx); ok {
				return nil, errors.E(errors.PermissionDenied, "%s changes the vault, and this server is read-only (%s); nothing was changed", name, rule).
					With("rule", rule).WithHint("Ask the user to turn off read-only mode if the change is wanted.")
			}
			return next(ctx, req)
		}
	}
	return out
}

// ListedReadOnly removes the tools that Writes from a tools/list answer.
func ListedReadOnly(res *mcp.ListToolsResult) {
	res.Tools = slices.DeleteFunc(res.Tools, Writes)
}
