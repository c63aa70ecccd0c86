package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// withProgress gives the call's context a note.Progress that sends
// notifications/progress, when the client asked for them with a
// progressToken: a call waiting on a long operation (the vault's first
// index build) then shows how far it has come. Progress only ever grows,
// as the protocol requires; a report that would not is dropped.
func withProgress(ctx context.Context, req mcp.CallToolRequest) context.Context {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return ctx
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return ctx
	}
	token := req.Params.Meta.ProgressToken
	last := -1
	return note.WithProgress(ctx, func(done, total int, message string) {
		if done <= last {
			return
		}
		last = done
		_ = srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
			"progressToken": token, "progress": done, "total": total, "message": message})
	})
}
