package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type getLinksArgs struct {
	locator
}

var getLinks = spec[getLinksArgs, note.Links]{
	name:  "obsidian_get_links",
	title: "Get outgoing links",
	description: "List the links a note makes to other notes and files ([[wikilinks]], embeds and Markdown links, never inside code), in order, each with its line and the vault path it resolves to the way Obsidian resolves it, or resolved: false when no file matches yet. " +
		"Locate the note by `path` or `name`. For the notes that link to it, use obsidian_get_backlinks.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a getLinksArgs) (note.Links, error) {
		return v.Graph.Links(ctx, a.note())
	},
}
