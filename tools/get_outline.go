package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type getOutlineArgs struct {
	locator
}

type outlineResult struct {
	Path string `json:"path" jsonschema:"vault-relative path of the note"`
	metadata.Outline
	ETag string `json:"etag" jsonschema:"hash of the note's content"`
}

var getOutline = spec[getOutlineArgs, outlineResult]{
	name:        "obsidian_get_outline",
	toolset:     "read",
	title:       "Get note outline",
	description: "A note's map without its text: headings with level and line range, block ids, property names, line count. Use it to read one section of a long note.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a getOutlineArgs) (outlineResult, error) {
		c, err := readText(ctx, v, a.note())
		if err != nil {
			return outlineResult{}, err
		}
		return outlineResult{Path: c.Path, Outline: metadata.Parse([]byte(c.Content)).Outline(), ETag: note.ETag([]byte(c.Content))}, nil
	},
}
