package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listPropertiesArgs struct {
	paging
}

var listProperties = spec[listPropertiesArgs, Page[note.PropertyStat]]{
	name:        "obsidian_list_properties",
	toolset:     "graph",
	title:       "List properties",
	description: "List the frontmatter properties used in the vault, with note counts and value types. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listPropertiesArgs) (Page[note.PropertyStat], error) {
		return pageAll(a.paging, key("properties"), func() ([]note.PropertyStat, error) { return v.Meta.Properties(ctx) })
	},
}
