package tools

import (
	"context"
	"strconv"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listFilesArgs struct {
	Folder    string `json:"folder,omitempty" jsonschema:"Folder to list, e.g. Projects/2026. Default: the vault root." validate:"omitempty,folder"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"List everything below the folder, not only its direct files and folders. Default false."`
	Glob      string `json:"glob,omitempty" jsonschema:"Only entries whose name matches, e.g. *.md or 2026-11-*; a pattern with / matches the path below the folder (** spans folders, e.g. **/Risks*.md). Case-insensitive." validate:"omitempty,max=300,nocontrols"`
	Ext       string `json:"ext,omitempty" jsonschema:"Only files with this extension, e.g. md, pdf or canvas (folders are left out)." validate:"omitempty,max=20,nocontrols"`
	Sort      string `json:"sort,omitempty" jsonschema:"name (default: by path) or modified (newest first: what changed lately)." validate:"omitempty,oneof=name modified"`
	paging
}

var listFiles = spec[listFilesArgs, Page[note.Entry]]{
	name:  "obsidian_list_files",
	title: "List files and folders",
	description: "List the vault's files and folders: one folder or everything below it, filtered by glob or extension, sorted by name or by modification time (sort: modified answers \"what changed this week?\"). " +
		"Each entry has its path, type (file or folder), size in bytes and modified time (RFC 3339, UTC). Hidden files and folders (.obsidian, .trash) never appear. " +
		"(Served by the Obsidian app on a vault folder this machine cannot open, entries have no size or time, and sort: modified fails with UNSUPPORTED.) " +
		describePaging("entries"),
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a listFilesArgs) (Page[note.Entry], error) {
		k := key("list", a.Folder, strconv.FormatBool(a.Recursive), a.Glob, a.Ext, a.Sort)
		off, err := a.offset(k)
		if err != nil {
			return Page[note.Entry]{}, err
		}
		l, err := v.Files.List(ctx, note.ListRequest{Folder: a.Folder, Recursive: a.Recursive, Glob: a.Glob, Ext: a.Ext, Sort: a.Sort, Offset: off, Limit: a.limit()})
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
