package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type fileInfoArgs struct {
	locator
}

var fileInfo = spec[fileInfoArgs, note.Info]{
	name:        "obsidian_file_info",
	toolset:     "read",
	title:       "Note file info",
	description: "A note's size and created and modified times without reading it; also shows whether it exists. Returns {path, name, extension, size, created, modified}.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a fileInfoArgs) (note.Info, error) {
		return v.Notes.FileInfo(ctx, a.note())
	},
}
