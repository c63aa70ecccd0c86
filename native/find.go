package native

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// finder holds the vault's index, made on the first call that needs it so
// that start-up stays as cheap as opening the folder.
type finder struct {
	once sync.Once
	ix   *vaultindex.Index
	w    *watcher // nil where the index sweeps instead
}

func (v *Engine) index() *vaultindex.Index {
	v.find.once.Do(func() {
		v.find.w = startWatcher(v.dir)
		opts := []vaultindex.Option{vaultindex.WithLogger(v.logger)}
		if !v.dvOff {
			opts = append(opts, vaultindex.WithExtra(v.dataviewPage))
		}
		if v.patience > 0 {
			opts = append(opts, vaultindex.WithPatience(v.patience))
		}
		if v.onBuild != nil {
			opts = append(opts, vaultindex.WithBuildHook(v.onBuild))
		}
		if v.keepIndex {
			dir, tag := v.indexPlace()
			opts = append(opts, vaultindex.WithStore(newIndexStore(dir), tag))
		}
		v.find.ix = vaultindex.New(v, opts...)
	})
	return v.find.ix
}

// Changed implements vaultindex.Changes with the folder's watcher.
func (v *Engine) Changed() ([]string, bool) {
	if v.find.w == nil {
		return nil, false
	}
	return v.find.w.Changed()
}

// Stamp implements vaultindex.Source: the file's modification time and
// size, which change when it is written. It follows symlinks, as reads do;
// a link leading outside the vault is refused when read.
func (v *Engine) Stamp(p string) (vaultindex.Stamp, error) {
	fi, err := os.Stat(filepath.Join(v.dir, filepath.FromSlash(p)))
	if err != nil {
		return vaultindex.Stamp{}, err
	}
	return vaultindex.Stamp{Mod: fi.ModTime(), Size: fi.Size(), ID: fileID(fi)}, nil
}

// ReadFile implements vaultindex.Source: the bytes of a vault file, read
// inside the jail.
func (v *Engine) ReadFile(p string) ([]byte, error) {
	if note.InDotFolder(p) || v.Policy().Hidden(p) {
		return nil, FileError(os.ErrNotExist, p)
	}
	return v.root.ReadFile(p)
}

// Search runs a ranked search (vaultindex's syntax).
func (v *Engine) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	return v.index().Search(ctx, req)
}

// Links returns the note's outgoing links, each resolved.
func (v *Engine) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Links{}, err
	}
	return v.index().Links(ctx, p)
}

// Backlinks returns every link to the note, by linking note and line.
func (v *Engine) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	p, err := v.locate(ctx, loc)
	if err != nil {
		return note.Backlinks{}, err
	}
	refs, err := v.index().Backlinks(ctx, p)
	return note.Backlinks{Path: p, Total: len(refs), Backlinks: refs}, err
}

// Unresolved returns the link targets no file matches.
func (v *Engine) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return v.index().Unresolved(ctx)
}

// Orphans returns the notes no other note links to.
func (v *Engine) Orphans(ctx context.Context) ([]string, error) {
	return v.index().Orphans(ctx)
}

// Tags counts the notes carrying each tag.
func (v *Engine) Tags(ctx context.Context) ([]note.TagCount, error) {
	return v.index().Tags(ctx)
}

// Tagged returns the notes carrying the tag or one nested below it.
func (v *Engine) Tagged(ctx context.Context, tag string) ([]string, error) {
	return v.index().Tagged(ctx, tag)
}

// Properties describes every frontmatter property name in the vault.
func (v *Engine) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return v.index().Properties(ctx)
}

// List lists a folder's files and folders (all below it when recursive),
// filtered by glob and extension, sorted by name or by modification time,
// newest first. Hidden files and folders never appear.
func (v *Engine) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	if err := ctx.Err(); err != nil {
		return note.Listing{}, err
	}
	files, err := v.Files()
	if err != nil {
		return note.Listing{}, err
	}
	folders := v.Folders()
	if req.Unused {
		linked, err := v.index().Linked(ctx)
		if err != nil {
			return note.Listing{}, err
		}
		files = slices.DeleteFunc(slices.Clone(files), func(f string) bool { return !note.IsAttachment(f) || linked[f] })
	}
	return note.ListEntries(req, files, folders, func(p string) (note.Entry, bool) {
		// Lstat by plain path is a third of os.Root's cost, and follows
		// nothing; a symlink (which Files lists only when it leads to a
		// file inside the vault) is described through the jail.
		fi, err := os.Lstat(filepath.Join(v.dir, filepath.FromSlash(p)))
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			fi, err = v.root.Stat(p)
		}
		if err != nil {
			return note.Entry{}, false
		}
		e := note.Entry{Path: p, Type: "file", Modified: fi.ModTime().UTC()}
		if fi.IsDir() {
			e.Type = "folder"
		} else {
			e.Size = fi.Size()
		}
		return e, true
	})
}
