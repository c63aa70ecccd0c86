package native

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Folders, as Obsidian has them: created empty, renamed or moved in one
// step with every link into them rewritten, and deleted to the vault's
// trash when empty. A move is one rename of the folder (all or nothing)
// under the vault's write lock, journaled like a note's move, so that a
// crash while links are rewritten is completed at the next start.

// folderPath checks a folder argument and returns it without a trailing
// slash: a vault-relative path, not the root, outside hidden folders, and,
// for a folder to make (isNew), with names every platform takes.
func folderPath(field, p string, isNew bool) (string, error) {
	p = note.FolderArg(p)
	if p == "" {
		return "", invalid(field, "must name a folder of the vault, e.g. Projects/2026 (the vault's top folder cannot be changed)")
	}
	if msg := note.CheckFolder(p); msg != "" {
		return "", invalid(field, msg)
	}
	if err := note.ValidateFolder(field, p, isNew); err != nil {
		return "", err
	}
	return p, nil
}

// folderWrite checks folder and takes the vault's write lock; release
// gives it back. Whether the policy lets the server change the folder is
// decided before the call comes here (internal/backend), once.
func (v *Engine) folderWrite(ctx context.Context, folder string, isNew bool) (p string, release func(), err error) {
	if p, err = folderPath("folder", folder, isNew); err != nil {
		return "", nil, err
	}
	if release, err = v.writing(ctx); err != nil {
		return "", nil, err
	}
	return p, release, nil
}

// isFolder reports whether p is a folder of the vault (not a symlink).
func (v *Engine) isFolder(p string) (bool, error) {
	fi, err := v.root.Lstat(p)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

// CreateFolder makes an empty folder, and its parents; an existing one
// is left as it is (changed false).
func (v *Engine) CreateFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	p, release, err := v.folderWrite(ctx, folder, true)
	if err != nil {
		return note.FolderChange{}, err
	}
	defer release()
	switch dir, err := v.isFolder(p); {
	case err == nil && dir:
		return note.FolderChange{Folder: p}, nil
	case err == nil:
		return note.FolderChange{}, errors.E(errors.FileExists, "%s is a file, not a folder", p).WithHint("Choose another name for the folder.")
	}
	dirs, err := v.madeDirs(ctx, p)
	if err != nil {
		return note.FolderChange{}, err
	}
	err = v.root.MkdirAll(p, 0o755)
	dirs()
	if err != nil {
		return note.FolderChange{}, FileError(err, p)
	}
	return note.FolderChange{Folder: p, Changed: true}, nil
}

// DeleteFolder moves an empty folder to the vault's trash, as Obsidian
// does with its setting's default; a folder that holds anything, hidden
// files included, is refused, saying what it holds.
func (v *Engine) DeleteFolder(ctx context.Context, folder string) (note.FolderChange, error) {
	p, release, err := v.folderWrite(ctx, folder, false)
	if err != nil {
		return note.FolderChange{}, err
	}
	defer release()
	if err := v.mustBeFolder(p); err != nil {
		return note.FolderChange{}, err
	}
	entries, err := fs.ReadDir(v.root.FS(), p)
	if err != nil {
		return note.FolderChange{}, FileError(err, p)
	}
	if len(entries) > 0 {
		return note.FolderChange{}, errors.E(errors.InvalidParams, "%s is not empty: it holds %d entries (%s first); only an empty folder is deleted", p, len(entries), entries[0].Name()).
			WithHint("Move or delete what it holds first (obsidian_list_files with folder and recursive lists it), or move the whole folder with obsidian_folder's move.")
	}
	part, err := recordPart(ctx, note.PartRmdir, p, "", nil, nil)
	if err != nil {
		return note.FolderChange{}, err
	}
	dest, err := v.toTrash(p, v.moveDir)
	if err != nil {
		part.Failed()
		return note.FolderChange{}, err
	}
	part.Landed(dest)
	return note.FolderChange{Folder: p, Changed: true, TrashPath: dest}, nil
}

// MoveFolder moves (or renames) a folder to the new path to, with
// everything in it, and rewrites every link to the files it holds, in
// notes and canvases, as moving a note does. Nothing is replaced: a
// destination that exists is refused.
func (v *Engine) MoveFolder(ctx context.Context, folder, to string) (note.FolderChange, error) {
	from, err := folderPath("folder", folder, false)
	if err != nil {
		return note.FolderChange{}, err
	}
	dest, err := folderPath("to", to, true)
	if err != nil {
		return note.FolderChange{}, err
	}
	if dest == from {
		return note.FolderChange{Folder: from, To: dest, Links: &note.LinkChanges{Paths: []string{}}}, nil
	}
	if strings.HasPrefix(dest+"/", from+"/") {
		return note.FolderChange{}, invalid("to", fmt.Sprintf("%s is inside %s: a folder cannot move into itself", dest, from))
	}
	if err := ctx.Err(); err != nil {
		return note.FolderChange{}, err
	}
	release, err := v.writing(ctx)
	if err != nil {
		return note.FolderChange{}, err
	}
	defer release()
	if err := v.mustBeFolder(from); err != nil {
		return note.FolderChange{}, err
	}
	if v.taken(dest) {
		return note.FolderChange{}, errors.E(errors.FileExists, "%s already exists; nothing was moved", dest).
			WithHint("Choose a path that does not exist yet: a folder is moved whole, never merged into another.")
	}
	files, err := v.Files()
	if err != nil {
		return note.FolderChange{}, err
	}
	pol := v.Policy()
	moves := map[string]string{}
	for _, f := range files {
		// f itself is checked with everything else the folder holds,
		// below.
		if rest, ok := strings.CutPrefix(f, from+"/"); ok {
			if err := pol.CheckWrite(dest + "/" + rest); err != nil {
				return note.FolderChange{}, err
			}
			moves[f] = dest + "/" + rest
		}
	}
	// Every file the rename takes along, the ones the listing leaves out
	// (hidden by the policy) too.
	if err := fs.WalkDir(v.root.FS(), from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || note.InDotFolder(p) {
			return err
		}
		return pol.CheckWrite(p)
	}); err != nil {
		return note.FolderChange{}, errors.E(errors.PermissionDenied, "%s holds files this server may not change (%v); nothing was moved", from, errors.From(err).Message).
			WithHint("Move the files it may change one by one, or ask the user to move the folder in Obsidian.")
	}
	var j *journal
	complete := true
	if len(moves) > 0 {
		// Kept until every link to the moved files is rewritten; a folder
		// holding nothing a link could reach needs none.
		if j, err = v.startJournal(intent{Op: opMove, Moves: moves}); err != nil {
			return note.FolderChange{}, err
		}
		defer func() { j.finish(complete) }()
	}
	dirs, err := v.madeDirs(ctx, note.Dir(dest))
	if err != nil {
		return note.FolderChange{}, err
	}
	if dir := note.Dir(dest); dir != "" {
		err := v.root.MkdirAll(dir, 0o755)
		dirs()
		if err != nil {
			return note.FolderChange{}, FileError(err, dir)
		}
	}
	part, err := recordPart(ctx, note.PartMove, from+"/", dest+"/", nil, nil)
	if err != nil {
		return note.FolderChange{}, err
	}
	if err := v.moveDir(from, dest); err != nil {
		part.Failed()
		return note.FolderChange{}, FileError(err, from)
	}
	part.Landed("")
	if j == nil {
		return note.FolderChange{Folder: from, To: dest, Changed: true, Links: &note.LinkChanges{Paths: []string{}}}, nil
	}
	// The folder has moved: its links are repaired whatever the context
	// says, or the vault would be left half-done.
	changes, short := v.retarget(ctx, files, moves)
	complete = len(changes.Failed) == 0
	if short != nil {
		return note.FolderChange{}, partial(short, fmt.Sprintf("%s was moved to %s and %d links in %d notes rewritten", from, dest, changes.Links, changes.Notes), changes.Failed)
	}
	return note.FolderChange{Folder: from, To: dest, Changed: true, Files: len(moves), Links: changes}, nil
}

// mustBeFolder refuses p unless it is a folder of the vault.
func (v *Engine) mustBeFolder(p string) error {
	dir, err := v.isFolder(p)
	switch {
	case err != nil:
		return errors.E(errors.FileNotFound, "folder not found: %s", p).WithCause(err).
			WithHint("obsidian_list_files lists the vault's folders (type: folder).")
	case !dir:
		return errors.E(errors.InvalidParams, "%s is a file, not a folder", p).
			WithHint("Move or delete a note with obsidian_move_note or obsidian_delete_note.")
	}
	return nil
}

// moveDir renames the folder from to to, which must not exist: checked
// under the vault's write lock, which every writer of the vault takes.
func (v *Engine) moveDir(from, to string) error {
	if v.taken(to) {
		return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
	}
	return v.root.Rename(from, to)
}
