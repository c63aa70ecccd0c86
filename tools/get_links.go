package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type getLinksArgs struct {
	locator
}

var getLinks = spec[getLinksArgs, note.Links]{
	name:        "obsidian_get_links",
	toolset:     "graph",
	title:       "Get outgoing links",
	description: "List a note's outgoing links (wikilinks, embeds, Markdown links), each with its line and the path it resolves to, or resolved: false.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a getLinksArgs) (note.Links, error) {
		return v.Graph.Links(ctx, a.note())
	},
}
