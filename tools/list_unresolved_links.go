package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listUnresolvedLinksArgs struct {
	paging
}

var listUnresolvedLinks = spec[listUnresolvedLinksArgs, Page[note.Unresolved]]{
	name:        "obsidian_list_unresolved_links",
	toolset:     "graph",
	title:       "List unresolved links",
	description: "List link targets that no file matches, most used first, with counts and where they are used. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listUnresolvedLinksArgs) (Page[note.Unresolved], error) {
		return pageAll(a.paging, key("unresolved"), func() ([]note.Unresolved, error) { return v.Graph.Unresolved(ctx) })
	},
}
