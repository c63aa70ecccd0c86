package native

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Create creates a note, from a template when asked, and never clobbers one
// unless req.Overwrite. Missing folders are made. The engine cannot show
// notes in the app, so Opened is always false.
func (v *Engine) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	if err := ctx.Err(); err != nil {
		return note.Created{}, err
	}
	target := req.Target()
	if err := note.ValidateWritable(req.TargetField(), target); err != nil {
		return note.Created{}, err
	}
	data := []byte(req.Content)
	if req.Template != "" {
		tpl, err := v.template(req.Template, note.Stem(target), time.Now())
		if err != nil {
			return note.Created{}, err
		}
		data = append(tpl, data...)
	}
	release, err := v.writing(ctx)
	if err != nil {
		return note.Created{}, err
	}
	defer release()
	res := note.Created{Path: target, Size: len(req.Content)}
	// Through a symlink (a linked note, or a linked folder on the way),
	// the file written is the one the link names; the link stays.
	real := v.RealPath(target)
	if real != target && note.InDotFolder(real) {
		return note.Created{}, errors.E(errors.PermissionDenied, "refused to write %s: it leads through a symlink to %s, inside a hidden folder that belongs to Obsidian", target, real).
			With("path", target).WithHint("Choose a path that is not a symlink into .obsidian/, .trash/ or another folder starting with '.'.")
	}
	if req.Overwrite {
		fi, statErr := v.root.Lstat(real)
		if statErr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// RealPath follows every link that stays inside the vault: one
			// left is a link out of it (or dangling), which a rename would
			// replace; every other tool refuses such a path, and so does
			// this one.
			return note.Created{}, errors.E(errors.PermissionDenied, "refused: %s leads outside the vault (through a symlink); nothing was changed", target).With("path", target).
				WithHint("The tools only reach files inside the vault folder; symlinks that point elsewhere are not followed or replaced.")
		}
		if statErr == nil && fi.IsDir() {
			return note.Created{}, errors.E(errors.FileExists, "%s is a folder; nothing was changed", target).With("path", target)
		}
		res.Overwrote = statErr == nil
	}
	dirs, err := v.madeDirs(ctx, note.Dir(real))
	if err != nil {
		return note.Created{}, err
	}
	defer dirs()
	if req.Overwrite {
		var before []byte
		op := note.PartCreate
		if res.Overwrote {
			if before, err = v.readBefore(ctx, real); err != nil {
				return note.Created{}, FileError(err, target)
			}
			op = note.PartEdit
		}
		part, perr := recordPart(ctx, op, target, "", before, data)
		if perr != nil {
			return note.Created{}, perr
		}
		err = atomicfile.Replace(v.root, real, data)
		part.Done(err)
	} else {
		part, perr := recordPart(ctx, note.PartCreate, target, "", nil, data)
		if perr != nil {
			return note.Created{}, perr
		}
		err = atomicfile.Create(v.root, real, data)
		part.Done(err)
	}
	if err != nil {
		return note.Created{}, FileError(err, target)
	}
	v.published.Add(v.root, real)
	return res, nil
}

// Read returns the note's exact bytes.
func (v *Engine) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Content{}, err
	}
	// Not empty or half written while another program saves it in place.
	data, err := atomicfile.ReadSettled(v.root, p, &v.published)
	if v.lookAgain(ctx, err) {
		data, err = atomicfile.ReadSettled(v.root, p, &v.published)
	}
	if err != nil {
		return note.Content{}, FileError(err, p)
	}
	return note.Content{Path: p, Content: string(data)}, nil
}

// Append adds content at the end of the note (note.Append's rules).
func (v *Engine) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return v.edit(ctx, loc, content, inline, note.Append)
}

// Prepend inserts content after the note's frontmatter (note.Prepend's rules).
func (v *Engine) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return v.edit(ctx, loc, content, inline, note.Prepend)
}

func (v *Engine) edit(ctx context.Context, loc note.Locator, content string, inline bool,
	apply func(existing, content []byte, inline bool) []byte) (note.Written, error) {
	res, err := v.Edit(ctx, loc, "", func(old []byte) ([]byte, error) { return apply(old, []byte(content), inline), nil })
	if err != nil {
		return note.Written{}, err
	}
	return note.Written{Path: res.Path, Bytes: len(content)}, nil
}

// Edit replaces the note's content with change(content): atomically,
// keeping its mode, serialised with this Vault's other writes, and as a
// compare-and-swap against other programs (atomicfile.Update), so that a
// change they make meanwhile is never lost: change is applied again to
// their content. With ifMatch, content of another version is refused with
// REVISION_CONFLICT and nothing is written.
func (v *Engine) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	p, real, err := v.locateReal(ctx, loc)
	if err != nil {
		return note.Edited{}, err
	}
	release, err := v.writing(ctx)
	if err != nil {
		return note.Edited{}, err
	}
	defer release()
	// A symlinked note is edited as the file it names (the link itself
	// never matched the file read, so every such edit was refused as busy).
	res, err := v.update(ctx, p, real, atomicfile.Change(note.IfMatch(p, ifMatch, change)))
	if errors.Is(err, atomicfile.ErrBusy) {
		return note.Edited{}, busy(err, p)
	}
	if err != nil {
		return note.Edited{}, FileError(err, p)
	}
	return note.Edited{Path: p, ETag: note.ETag(res.New), Changed: !bytes.Equal(res.Old, res.New)}, nil
}

// Delete moves the note into the vault's .trash folder, under a name no
// other trashed file has, or deletes it when permanent.
func (v *Engine) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Deleted{}, err
	}
	release, err := v.writing(ctx)
	if err != nil {
		return note.Deleted{}, err
	}
	defer release()
	if err := v.checkVersion(p, loc.IfMatch); err != nil {
		return note.Deleted{}, err
	}
	before, err := v.readBefore(ctx, p)
	if err != nil {
		return note.Deleted{}, FileError(err, p)
	}
	dest, err := v.remove(ctx, p, before, permanent)
	if err != nil {
		return note.Deleted{}, err
	}
	return note.Deleted{Path: p, Permanent: permanent, TrashPath: dest}, nil
}

// remove deletes the note at p, whose bytes are before (read for the
// record), to the trash or for good, recorded as a part of ctx's change;
// it returns where the trash put it. The write lock is held.
func (v *Engine) remove(ctx context.Context, p string, before []byte, permanent bool) (string, error) {
	part, err := recordPart(ctx, note.PartDelete, p, "", before, nil)
	if err != nil {
		return "", err
	}
	if permanent {
		if err := v.root.Remove(p); err != nil {
			part.Failed()
			return "", FileError(err, p)
		}
		part.Landed("")
		return "", nil
	}
	dest, err := v.toTrash(p, v.rename)
	if err != nil {
		part.Failed()
		return "", err
	}
	part.Landed(dest)
	return dest, nil
}

// toTrash moves p into the vault's trash under a name free there, as
// Obsidian does with what it deletes; move is how (a file's rename, a
// folder's). It returns where p went.
func (v *Engine) toTrash(p string, move func(from, to string) error) (string, error) {
	if err := v.root.MkdirAll(TrashDir, 0o755); err != nil {
		return "", FileError(err, TrashDir)
	}
	for {
		dest := note.Numbered(TrashDir+"/"+path.Base(p), v.taken)
		err := move(p, dest)
		if errors.Is(err, fs.ErrExist) {
			continue // taken between the check and the move: pick again
		}
		if err != nil {
			return "", FileError(err, p)
		}
		return dest, nil
	}
}

// taken reports whether anything exists at p.
func (v *Engine) taken(p string) bool {
	_, err := v.root.Lstat(p)
	return err == nil
}

// rename moves a file from one path to another without replacing anything
// at the destination, making its folders. A hard link is an atomic
// "rename unless the target exists"; where links are impossible, or for a
// change of case alone (which names the same file on case-insensitive
// systems), it is a checked rename.
func (v *Engine) rename(from, to string) error {
	if dir := note.Dir(to); dir != "" {
		if err := v.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if !strings.EqualFold(from, to) {
		err := v.root.Link(from, to)
		if err == nil {
			if err := v.root.Remove(from); err != nil {
				_ = v.root.Remove(to)
				return err
			}
			return nil
		}
		if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrNotExist) || escapes(err) {
			return err
		}
		if v.taken(to) {
			return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
		}
	} else if toFi, err := v.root.Lstat(to); err == nil {
		// On a case-sensitive file system these are two files.
		if fromFi, err := v.root.Lstat(from); err != nil || !os.SameFile(fromFi, toFi) {
			return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
		}
	}
	return v.root.Rename(from, to)
}

// Move moves the note to a folder or a full new path and rewrites the
// links that pointed at it.
func (v *Engine) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	if err := note.ValidateDestination(to); err != nil {
		return note.Moved{}, err
	}
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Moved{}, err
	}
	return v.relocate(ctx, p, note.MoveTarget(p, to), "to", loc.IfMatch)
}

// Rename renames the note in its folder, keeping its extension, and
// rewrites the links that pointed at it.
func (v *Engine) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	if err := note.ValidateNewName(newName); err != nil {
		return note.Moved{}, err
	}
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Moved{}, err
	}
	return v.relocate(ctx, p, note.RenameTarget(p, newName), "new_name", loc.IfMatch)
}

func (v *Engine) relocate(ctx context.Context, from, to, field, ifMatch string) (note.Moved, error) {
	if to == from {
		return note.Moved{From: from, To: to, Links: &note.LinkChanges{Paths: []string{}}}, nil
	}
	if err := note.ValidateWritable(field, to); err != nil {
		return note.Moved{}, err
	}
	if err := ctx.Err(); err != nil {
		return note.Moved{}, err
	}
	release, err := v.writing(ctx)
	if err != nil {
		return note.Moved{}, err
	}
	defer release()
	if err := v.checkVersion(from, ifMatch); err != nil {
		return note.Moved{}, err
	}
	files, err := v.Files()
	if err != nil {
		return note.Moved{}, err
	}
	moves := map[string]string{from: to}
	// The journal says what is under way, so that a crash while the links
	// are rewritten is completed at the next start (Recover).
	j, err := v.startJournal(intent{Op: opMove, Moves: moves})
	if err != nil {
		return note.Moved{}, err
	}
	// Kept, for the next start or write to complete, while a note's links
	// could not be rewritten.
	complete := true
	defer func() { j.finish(complete) }()
	dirs, err := v.madeDirs(ctx, note.Dir(to))
	if err != nil {
		return note.Moved{}, err
	}
	part, err := recordPart(ctx, note.PartMove, from, to, nil, nil)
	if err != nil {
		dirs()
		return note.Moved{}, err
	}
	err = v.rename(from, to)
	dirs()
	if err != nil {
		part.Failed()
		if errors.Is(err, fs.ErrExist) {
			return note.Moved{}, note.Exists(to)
		}
		return note.Moved{}, FileError(err, from)
	}
	part.Landed("")
	// From here the move has happened: the links are repaired whatever the
	// context says, or the vault would be left half-done.
	changes, short := v.retarget(ctx, files, moves)
	complete = len(changes.Failed) == 0
	if short != nil {
		return note.Moved{}, partial(short, fmt.Sprintf("%s was moved to %s and %d links in %d notes rewritten", from, to, changes.Links, changes.Notes), changes.Failed)
	}
	return note.Moved{From: from, To: to, Links: changes}, nil
}

// Open cannot work without the app.
func (v *Engine) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	return note.Opened{}, errors.E(errors.Unsupported, "opening a note needs the Obsidian app, and this server is working on the vault folder without it").
		WithHint("Start Obsidian with its command line interface enabled, and run the server with --backend auto (the default) or --backend cli.")
}

// FileInfo describes the note's file. Times have millisecond precision, as
// the app reports them.
func (v *Engine) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Info{}, err
	}
	// Opened without waiting and refused unless a regular file: a FIFO
	// named like an attachment blocked read_attachment for ever.
	f, err := openRegular(v.root, p, 0)
	if err != nil {
		return note.Info{}, FileError(err, p)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return note.Info{}, FileError(err, p)
	}
	mod := fi.ModTime()
	created := birthTime(f, fi)
	if created.IsZero() || created.After(mod) {
		created = mod
	}
	return note.Info{
		Path:      p,
		Name:      note.Stem(p),
		Extension: note.Ext(p),
		Size:      fi.Size(),
		Created:   created.UTC().Truncate(time.Millisecond),
		Modified:  mod.UTC().Truncate(time.Millisecond),
	}, nil
}

// checkVersion refuses, with REVISION_CONFLICT, a change of the note at p
// when it no longer holds the version ifMatch names (none: no check). It
// is called with the write lock held, right before the change.
func (v *Engine) checkVersion(p, ifMatch string) error {
	if ifMatch == "" {
		return nil
	}
	data, err := atomicfile.ReadSettled(v.root, p, &v.published)
	if err != nil {
		return FileError(err, p)
	}
	return note.CheckVersion(p, ifMatch, data)
}
