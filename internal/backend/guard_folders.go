package backend

import (
	"context"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// guardFolders holds tools.Folders to the policy: the folder, and a move's
// destination, must be ones the server may change (the engine checks each
// file a move takes along too).
type guardFolders struct {
	g    *Gate
	next tools.Folders
}

func (f guardFolders) CreateFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	if err := f.g.writePolicy(ctx).CheckWrite(asFolder(folder)); err != nil {
		return note.FolderChange{}, err
	}
	return f.next.CreateFolder(ctx, folder)
}

func (f guardFolders) MoveFolder(ctx context.Context, folder, to string) (note.FolderChange, error) {
	pol := f.g.writePolicy(ctx)
	for _, p := range []string{folder, to} {
		if err := pol.CheckWrite(asFolder(p)); err != nil {
			return note.FolderChange{}, err
		}
	}
	return f.next.MoveFolder(ctx, folder, to)
}

func (f guardFolders) DeleteFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	if err := f.g.writePolicy(ctx).CheckWrite(asFolder(folder)); err != nil {
		return note.FolderChange{}, err
	}
	return f.next.DeleteFolder(ctx, folder)
}

// asFolder is folder as the policy judges a folder: with one trailing
// slash, so that a rule on what it holds applies.
func asFolder(folder string) string { return strings.TrimSuffix(folder, "/") + "/" }
