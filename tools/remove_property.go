package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

type removePropertyArgs struct {
	locator
	version
	Key string `json:"key" jsonschema:"The property name to remove, e.g. status." validate:"required,max=200,nocontrols"`
}

var removeProperty = spec[removePropertyArgs, note.Edited]{
	name:        "obsidian_remove_property",
	toolset:     "edit",
	title:       "Remove property",
	description: "Remove one frontmatter property; every other byte stays. Returns {path, etag, changed}.",
	hints:       hints{destructive: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a removePropertyArgs) (note.Edited, error) {
		return v.Edit.Edit(ctx, a.note(), a.IfMatch, func(cur []byte) ([]byte, error) {
			r, _, err := patch.RemoveProperty(cur, a.Key)
			return r.Content, err
		})
	},
}
