package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type fileInfoArgs struct {
	locator
}

var fileInfo = spec[fileInfoArgs, note.Info]{
	name:  "obsidian_file_info",
	title: "Note file info",
	description: "Get a note's file facts without reading it: path, name, extension, size in bytes, and created and modified times (RFC 3339, UTC). " +
		"Use it to check that a note exists or has changed. Locate the note by `path` or `name`. Returns {path, name, extension, size, created, modified}.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a fileInfoArgs) (note.Info, error) {
		return v.Notes.FileInfo(ctx, a.note())
	},
}
