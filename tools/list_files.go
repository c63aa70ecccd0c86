package tools

import (
	"context"
	"strconv"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listFilesArgs struct {
	Folder    string `json:"folder,omitempty" jsonschema:"Folder to list; default the root." validate:"omitempty,folder"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"Everything below, not only direct entries."`
	Glob      string `json:"glob,omitempty" jsonschema:"Only names matching, e.g. 2026-11-*; with / the path (**/Risks*.md)." validate:"omitempty,max=300,nocontrols"`
	Ext       string `json:"ext,omitempty" jsonschema:"Only files with this extension, e.g. md." validate:"omitempty,max=20,nocontrols"`
	Sort      string `json:"sort,omitempty" jsonschema:"name (default) or modified (newest first)." validate:"omitempty,oneof=name modified"`
	Unused    bool   `json:"unused,omitempty" jsonschema:"Only attachments no note or canvas embeds or links to; without a folder, in the whole vault."`
	paging
}

var listFiles = spec[listFilesArgs, Page[note.Entry]]{
	name:        "obsidian_list_files",
	toolset:     "read",
	title:       "List files and folders",
	description: "List files and folders in `folder` (default the whole vault), filtered by `glob` or `ext`, sorted by name or `modified` (\"what changed this week?\"). Entries: path, type, size, modified. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listFilesArgs) (Page[note.Entry], error) {
		if a.Unused && a.Folder == "" {
			// Unused attachments are a question about the whole vault:
			// without recursive it silently missed every subfolder's.
			a.Recursive = true
		}
		k := key("list", a.Folder, strconv.FormatBool(a.Recursive), a.Glob, a.Ext, a.Sort, strconv.FormatBool(a.Unused))
		off, err := a.offset(k)
		if err != nil {
			return Page[note.Entry]{}, err
		}
		l, err := v.Files.List(ctx, note.ListRequest{Folder: a.Folder, Recursive: a.Recursive, Glob: a.Glob, Ext: a.Ext, Sort: a.Sort, Unused: a.Unused, Offset: off, Limit: a.limit()})
		if err != nil {
			return Page[note.Entry]{}, err
		}
		n := fit(l.Entries)
		pg := Page[note.Entry]{Total: l.Total, Items: l.Entries[:n], Truncated: n < len(l.Entries)}
		if off+n < l.Total {
			pg.NextCursor = nextCursor(k, off+n)
		}
		return pg, nil
	},
}
