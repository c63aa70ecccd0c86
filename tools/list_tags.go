package tools

import (
	"context"
	"sort"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listTagsArgs struct {
	Sort string `json:"sort,omitempty" jsonschema:"name (default) or count (most used first)." validate:"omitempty,oneof=name count"`
	paging
}

var listTags = spec[listTagsArgs, Page[note.TagCount]]{
	name:        "obsidian_list_tags",
	toolset:     "graph",
	title:       "List tags",
	description: "List the vault's tags with their note counts (a nested tag counts for its parents). Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listTagsArgs) (Page[note.TagCount], error) {
		return pageAll(a.paging, key("tags", a.Sort), func() ([]note.TagCount, error) {
			all, err := v.Meta.Tags(ctx)
			if a.Sort == "count" {
				sort.SliceStable(all, func(i, j int) bool { return all[i].Count > all[j].Count })
			} else {
				sort.SliceStable(all, func(i, j int) bool { return strings.ToLower(all[i].Tag) < strings.ToLower(all[j].Tag) })
			}
			return all, err
		})
	},
}
