package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type getBacklinksArgs struct {
	locator
	paging
}

type backlinksResult struct {
	Path string `json:"path" jsonschema:"the note linked to"`
	Page[note.LinkRef]
}

var getBacklinks = spec[getBacklinksArgs, backlinksResult]{
	name:        "obsidian_get_backlinks",
	toolset:     "graph",
	title:       "Get backlinks",
	description: "List where other notes link to a note: the path and line of each link. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a getBacklinksArgs) (backlinksResult, error) {
		k := key("backlinks", a.Path, a.Name)
		if _, err := a.offset(k); err != nil {
			return backlinksResult{}, err
		}
		bl, err := v.Graph.Backlinks(ctx, a.note())
		if err != nil {
			return backlinksResult{}, err
		}
		pg, err := pageOf(bl.Backlinks, a.paging, k)
		return backlinksResult{Path: bl.Path, Page: pg}, err
	},
}
