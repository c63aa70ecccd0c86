package tools

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
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
	out := slices.Clone(all)
	for i, st := range out {
		if !Writes(st.Tool) {
			continue
		}
		name := st.Tool.Name
		out[i].Handler = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.E(errors.PermissionDenied, "%s changes the vault, and this server is read-only (%s); nothing was changed", name, rule).
				With("rule", rule).WithHint("Ask the user to turn off read-only mode if the change is wanted.")
		}
	}
	return out
}

// ListedReadOnly removes the tools that Writes from a tools/list answer.
func ListedReadOnly(res *mcp.ListToolsResult) {
	res.Tools = slices.DeleteFunc(res.Tools, Writes)
}
