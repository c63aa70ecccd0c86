package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listUnresolvedLinksArgs struct {
	paging
}

var listUnresolvedLinks = spec[listUnresolvedLinksArgs, Page[note.Unresolved]]{
	name:  "obsidian_list_unresolved_links",
	title: "List unresolved links",
	description: "List the link targets across the vault that no file matches (links to notes not written yet, or broken by a rename outside Obsidian), most used first, each with its count and up to 10 places that use it (path and line). " +
		describePaging("targets"),
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listUnresolvedLinksArgs) (Page[note.Unresolved], error) {
		return pageAll(a.paging, key("unresolved"), func() ([]note.Unresolved, error) { return v.Graph.Unresolved(ctx) })
	},
}
