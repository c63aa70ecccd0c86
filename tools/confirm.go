package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Asker asks the user to confirm an action. asked is false when the user
// cannot be asked (the client has no way to), and then confirmed is too.
type Asker interface {
	Confirm(ctx context.Context, id, message string) (confirmed, asked bool, err error)
}

// Elicit asks through the MCP client that made the call, with an
// elicitation form, when the client declared it can show one. It uses the
// multi round-trip pattern (SEP-2322): the first call answers "input
// required" with the form, and the client calls again with the user's
// answer; for clients before protocol 2026-07-28, mcp-go sends them the
// older elicitation/create request and calls again itself. It works on
// every transport mcp-go serves, and needs nothing of the tools.
type Elicit struct{}

// inputKey carries a tools/call's input responses to an Asker.
type inputKey struct{}

// needInput ends a tool call with an "input required" result.
type needInput struct{ result *mcp.CallToolResult }

func (needInput) Error() string { return "the user's answer is needed" }

// Confirm implements Asker: id names the question, so that the answer to
// the second call finds it.
func (Elicit) Confirm(ctx context.Context, id, message string) (bool, bool, error) {
	responses, _ := ctx.Value(inputKey{}).(mcp.InputResponses)
	if res := server.ElicitationResponse(responses, id); res != nil {
		content, _ := res.Content.(map[string]any)
		return res.Action == mcp.ElicitationResponseActionAccept && content["confirm"] == true, true, nil
	}
	info, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || info.GetClientCapabilities().Elicitation == nil {
		return false, false, nil
	}
	return false, true, needInput{server.NewInputRequestBuilder("").Elicit(id, mcp.ElicitationParams{
		Message: message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Yes, do it", "description": "Tick to confirm; this cannot be undone."},
			},
			"required": []string{"confirm"},
		},
	}).ToolResult()}
}

// inputRequired is the "input required" result err asks for, if it does.
func inputRequired(err error) (*mcp.CallToolResult, bool) {
	var n needInput
	if errors.As(err, &n) {
		return n.result, true
	}
	return nil, false
}

// NeedsConfirmation reports whether a call deletes, overwrites, moves or
// renames a note: the calls a transport that confirms with the user in its
// own way (the envelope API's _confirm) holds back until confirmed. Each
// tool's spec says it (spec.confirm), so that no transport keeps a list of
// tool names.
func NeedsConfirmation(tool string, args map[string]any) bool {
	for _, e := range registry() {
		if f := e.facts(); f.name == tool {
			return f.confirm != nil && f.confirm(args)
		}
	}
	return false
}
