package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestCreateNote(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_create_note", []toolCase{
		{name: "by path adds .md", args: `{"path":"Projects/Plan","content":"# Plan\n"}`,
			wantCall: `Create {Path:Projects/Plan Name: Folder: Content:# Plan
 Template: Overwrite:false Open:false}`,
			wantData: `{"success":true,"data":{"path":"Projects/Plan.md","overwrote":false,"size":7,"opened":false}}`},
		{name: "by name in folder with options", args: `{"name":"Plan","folder":"Ideas/","content":"x","overwrite":true,"open":true,"template":"Daily"}`,
			wantCall: `Create {Path: Name:Plan Folder:Ideas/ Content:x Template:Daily Overwrite:true Open:true}`,
			wantData: `{"success":true,"data":{"path":"Ideas/Plan.md","overwrote":true,"size":1,"opened":true}}`},
		{name: "content kept verbatim", args: `{"path":"a.md","content":"\\times \r\n 😀"}`,
			wantCall: "Create {Path:a.md Name: Folder: Content:\\times \r\n 😀 Template: Overwrite:false Open:false}",
			wantData: `{"success":true,"data":{"path":"a.md","overwrote":false,"size":14,"opened":false}}`},
		{name: "neither path nor name", args: `{"content":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"path", "name"}, wantMsg: "exactly one"},
		{name: "path and name", args: `{"path":"a.md","name":"a"}`, wantKind: errors.InvalidParams, wantFields: []string{"path", "name"}, wantMsg: "exactly one"},
		{name: "folder with path", args: `{"path":"a.md","folder":"x"}`, wantKind: errors.InvalidParams, wantFields: []string{"folder"}},
		{name: "name with slash", args: `{"name":"a/b"}`, wantKind: errors.InvalidParams, wantFields: []string{"name"}, wantMsg: "folder"},
		{name: "name with forbidden char", args: `{"name":"what?"}`, wantKind: errors.InvalidParams, wantFields: []string{"name"}, wantMsg: "'?'"},
		{name: "folder traversal", args: `{"name":"a","folder":"../out"}`, wantKind: errors.InvalidParams, wantFields: []string{"folder"}},
		{name: "path traversal", args: `{"path":"x/../../etc/a.md"}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}},
		{name: "path is a folder", args: `{"path":"Projects/"}`, wantKind: errors.InvalidParams, wantFields: []string{"path"}, wantMsg: "not a folder"},
		{name: "template with newline", args: `{"path":"a.md","template":"a\nb"}`, wantKind: errors.InvalidParams, wantFields: []string{"template"}},
		{name: "overwrite not a boolean", args: `{"path":"a.md","overwrite":"yes"}`, wantKind: errors.InvalidParams, wantFields: []string{"overwrite"}, wantMsg: "must be a boolean"},
		{name: "exists", args: `{"path":"a.md"}`, err: errors.E(errors.FileExists, "a note already exists at a.md"),
			wantCall: "Create {Path:a.md Name: Folder: Content: Template: Overwrite:false Open:false}", wantKind: errors.FileExists},
	})
}
