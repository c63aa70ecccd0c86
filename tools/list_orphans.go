package tools

import (
	"context"
)

type listOrphansArgs struct {
	paging
}

var listOrphans = spec[listOrphansArgs, Page[string]]{
	name:        "obsidian_list_orphans",
	toolset:     "graph",
	title:       "List orphan notes",
	description: "List the notes no other note links to. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listOrphansArgs) (Page[string], error) {
		return pageAll(a.paging, key("orphans"), func() ([]string, error) { return v.Graph.Orphans(ctx) })
	},
}
