package tools

import (
	"context"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func init() {
	examples["obsidian_folder"] = `{"operation":"move","folder":"Projects","to":"Archive/Projects"}`
	conditional["obsidian_folder.to"] = true // operation move
}

func (f *fakeBackend) CreateFolder(_ context.Context, folder string) (note.FolderChange, error) {
	err := f.record("CreateFolder %s", folder)
	return note.FolderChange{Folder: folder, Changed: true}, err
}

func (f *fakeBackend) MoveFolder(_ context.Context, folder, to string) (note.FolderChange, error) {
	err := f.record("MoveFolder %s to=%s", folder, to)
	return note.FolderChange{Folder: folder, To: to, Changed: true, Files: 2, Links: &note.LinkChanges{Links: 1, Notes: 1, Paths: []string{"Index.md"}}}, err
}

func (f *fakeBackend) DeleteFolder(_ context.Context, folder string) (note.FolderChange, error) {
	err := f.record("DeleteFolder %s", folder)
	return note.FolderChange{Folder: folder, Changed: true, TrashPath: ".trash/" + folder}, err
}

func TestFolder(t *testing.T) {
	t.Parallel()
	runCases(t, "obsidian_folder", []toolCase{
		{name: "create", args: `{"operation":"create","folder":"Projects/2026"}`, wantCall: "CreateFolder Projects/2026",
			wantData: `{"success":true,"data":{"folder":"Projects/2026","changed":true}}`},
		{name: "move", args: `{"operation":"move","folder":"Projects","to":"Archive/Projects"}`, wantCall: "MoveFolder Projects to=Archive/Projects",
			wantData: `{"success":true,"data":{"folder":"Projects","to":"Archive/Projects","changed":true,"files":2,"links":{"links":1,"notes":1,"paths":["Index.md"]}}}`},
		{name: "delete", args: `{"operation":"delete","folder":"Old"}`, wantCall: "DeleteFolder Old",
			wantData: `{"success":true,"data":{"folder":"Old","changed":true,"trash_path":".trash/Old"}}`},
		{name: "a move needs to", args: `{"operation":"move","folder":"Projects"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "only a move takes to", args: `{"operation":"delete","folder":"Projects","to":"X"}`, wantKind: errors.InvalidParams, wantFields: []string{"to"}},
		{name: "unknown operation", args: `{"operation":"copy","folder":"Projects"}`, wantKind: errors.InvalidParams, wantFields: []string{"operation"}},
		{name: "the engine's refusal", args: `{"operation":"delete","folder":"Full"}`, wantCall: "DeleteFolder Full",
			err: errors.E(errors.InvalidParams, "Full is not empty"), wantKind: errors.InvalidParams, wantMsg: "not empty"},
	})
}
