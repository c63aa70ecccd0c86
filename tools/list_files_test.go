package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestListFiles(t *testing.T) {
	t.Parallel()
	const entries = `{"path":"A","type":"folder","modified":"2026-11-21T10:00:00Z"},{"path":"A/b.md","type":"file","size":3,"modified":"2026-11-21T10:00:00Z"}`
	next := nextCursor(key("list", "", "true", "", "", "modified", "false"), 2)
	cases := []toolCase{
		{name: "recursive by date", args: `{"recursive":true,"sort":"modified","limit":2}`, wantCall: "List {Folder: Recursive:true Glob: Ext: Sort:modified Unused:false Offset:0 Limit:2}",
			wantData: `{"success":true,"data":{"total":3,"items":[` + entries + `],"next_cursor":"` + next + `"}}`},
		{name: "second page", args: `{"recursive":true,"sort":"modified","limit":2,"cursor":"` + next + `"}`, wantCall: "List {Folder: Recursive:true Glob: Ext: Sort:modified Unused:false Offset:2 Limit:2}",
			wantData: `{"success":true,"data":{"total":3,"items":[{"path":"c.md","type":"file","size":4,"modified":"2026-11-21T10:00:00Z"}]}}`},
		{name: "unused attachments", args: `{"recursive":true,"unused":true}`, wantCall: "List {Folder: Recursive:true Glob: Ext: Sort: Unused:true Offset:0 Limit:20}",
			wantData: `{"success":true,"data":{"total":3,"items":[` + entries + `,{"path":"c.md","type":"file","size":4,"modified":"2026-11-21T10:00:00Z"}]}}`},
		{name: "unused attachments are looked for in the whole vault", args: `{"unused":true}`, wantCall: "List {Folder: Recursive:true Glob: Ext: Sort: Unused:true Offset:0 Limit:20}",
			wantData: `{"success":true,"data":{"total":3,"items":[` + entries + `,{"path":"c.md","type":"file","size":4,"modified":"2026-11-21T10:00:00Z"}]}}`},
		{name: "unused attachments of a folder, as asked", args: `{"folder":"Assets","unused":true}`, wantCall: "List {Folder:Assets Recursive:false Glob: Ext: Sort: Unused:true Offset:0 Limit:20}",
			wantData: `{"success":true,"data":{"total":3,"items":[` + entries + `,{"path":"c.md","type":"file","size":4,"modified":"2026-11-21T10:00:00Z"}]}}`},
		{name: "cursor of another listing", args: `{"recursive":false,"cursor":"` + next + `"}`, wantKind: errors.InvalidParams, wantFields: []string{"cursor"}},
		{name: "filters", args: `{"folder":"Daily","glob":"2026-*","ext":".md"}`, wantCall: "List {Folder:Daily Recursive:false Glob:2026-* Ext:.md Sort: Unused:false Offset:0 Limit:20}",
			wantData: `{"success":true,"data":{"total":3,"items":[` + entries + `,{"path":"c.md","type":"file","size":4,"modified":"2026-11-21T10:00:00Z"}]}}`},
		{name: "bad sort", args: `{"sort":"size"}`, wantKind: errors.InvalidParams, wantFields: []string{"sort"}, wantMsg: ""},
		{name: "folder escaping", args: `{"folder":"../x"}`, wantKind: errors.InvalidParams, wantFields: []string{"folder"}},
		{name: "folder missing", args: `{"folder":"Nope"}`, err: errors.E(errors.FileNotFound, "folder not found: Nope"), wantKind: errors.FileNotFound,
			wantCall: "List {Folder:Nope Recursive:false Glob: Ext: Sort: Unused:false Offset:0 Limit:20}"},
	}
	runCases(t, "obsidian_list_files", cases)
}
