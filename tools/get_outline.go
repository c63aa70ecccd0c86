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
	name:  "obsidian_get_outline",
	title: "Get note outline",
	description: "Get a note's map without reading it all: every heading with its level, its line and the last line of its section, every block id (^id) with its line, the frontmatter's property names, and the line count. " +
		"Headings inside code blocks are not headings. Use it to read one section (obsidian_read_note with `section` or `lines`) of a long note. Locate the note by `path` or `name`.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a getOutlineArgs) (outlineResult, error) {
		c, err := v.Notes.Read(ctx, a.note())
		if err != nil {
			return outlineResult{}, err
		}
		return outlineResult{Path: c.Path, Outline: metadata.Parse([]byte(c.Content)).Outline(), ETag: note.ETag([]byte(c.Content))}, nil
	},
}
