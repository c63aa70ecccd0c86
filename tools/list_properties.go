package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listPropertiesArgs struct {
	paging
}

var listProperties = spec[listPropertiesArgs, Page[note.PropertyStat]]{
	name:  "obsidian_list_properties",
	title: "List properties",
	description: "List every frontmatter property name used in the vault, by name, with the number of notes that have it and the value types seen (text, number, checkbox, date, datetime, list, object, null). " +
		"Use it to learn a vault's conventions before filtering with obsidian_search_notes ([status:done]). " + describePaging("names"),
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listPropertiesArgs) (Page[note.PropertyStat], error) {
		return pageAll(a.paging, key("properties"), func() ([]note.PropertyStat, error) { return v.Meta.Properties(ctx) })
	},
}
