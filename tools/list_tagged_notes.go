package tools

import (
	"context"
	"strings"
)

type listTaggedNotesArgs struct {
	Tag string `json:"tag" jsonschema:"The tag, e.g. project or #project/garden." validate:"required,max=200,nocontrols"`
	paging
}

var listTaggedNotes = spec[listTaggedNotesArgs, Page[string]]{
	name:        "obsidian_list_tagged_notes",
	toolset:     "graph",
	title:       "List notes with a tag",
	description: "List the notes carrying a tag, nested tags included. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listTaggedNotesArgs) (Page[string], error) {
		tag := strings.Trim(strings.TrimPrefix(strings.TrimSpace(a.Tag), "#"), "/")
		return pageAll(a.paging, key("tagged", strings.ToLower(tag)), func() ([]string, error) { return v.Meta.Tagged(ctx, tag) })
	},
}
