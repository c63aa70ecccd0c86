package tools

import (
	"context"
	"strings"
)

type listTaggedNotesArgs struct {
	Tag string `json:"tag" jsonschema:"The tag, with or without #, e.g. project or #project/garden; notes with a tag nested below it count too. Case-insensitive." validate:"required,max=200,nocontrols"`
	paging
}

var listTaggedNotes = spec[listTaggedNotesArgs, Page[string]]{
	name:  "obsidian_list_tagged_notes",
	title: "List notes with a tag",
	description: "List the notes carrying a tag, in frontmatter or inline (never inside code), nested tags included (#project finds #project/garden), by path. " +
		describePaging("paths") + " To combine a tag with words, use obsidian_search_notes with tag:name.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listTaggedNotesArgs) (Page[string], error) {
		tag := strings.Trim(strings.TrimPrefix(strings.TrimSpace(a.Tag), "#"), "/")
		return pageAll(a.paging, key("tagged", strings.ToLower(tag)), func() ([]string, error) { return v.Meta.Tagged(ctx, tag) })
	},
}
