// Package statedir reaches the files of the server's state folder inside a
// vault (.obsidian-mcp: the write lock, the journal, the parking folders)
// through one handle of that folder, never through a path string, and
// never through a link.
//
// A vault arrives from elsewhere: cloned from git, copied by a sync client,
// unpacked from an archive. Whatever it carries in the state folder, a link
// there (to "..", to a folder of notes, to a file) must not lead an
// operation of ours anywhere: on Unix each name is walked one folder at a
// time from the handle with O_NOFOLLOW (openat, mkdirat, unlinkat,
// renameat), so the system itself refuses a link at any place of the path;
// elsewhere an os.Root opened on the folder keeps every operation inside
// it, and each place of the path is checked not to be a link or junction
// before it is used. A link met is refused with an error naming it
// (ErrLink), never followed and never removed.
//
// A folder is removed only when it is proved ours: MakeOwned writes a
// marker into it at creation, and RemoveOwned checks that marker through
// the handle before it removes the folder's files (never a folder inside
// it) and then the folder.
//
// This package is not for the notes: the vault's own files are reached
// through the engine's os.Root, which follows links that stay in the vault
// on purpose (the folder policy judges where they lead).
package statedir

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
)

// ErrLink is the error of an operation whose path meets a link (or, on
// Windows, a junction): the state folder's files are never reached
// through one.
var ErrLink = errors.New("a link, which is never followed in the state folder: remove it")

// ErrNotOwned is RemoveOwned's error for a folder without this owner's
// marker: it was not made by MakeOwned with the same mark.
var ErrNotOwned = errors.New("not a folder this server made (no marker of its own): left as it is")

// errName is the error of a name that is not a plain relative path.
var errName = errors.New("not a plain path inside the state folder")

// OwnerFile is the marker MakeOwned writes into a folder it makes.
const OwnerFile = ".owner"

// Dir is one state folder, opened once. Its methods are safe for
// concurrent use; names are slash-separated and relative to the folder.
type Dir struct {
	name string // the folder's path in the vault, for errors
	mu   sync.RWMutex
	h    handle
}

// Open opens the folder name (one name, at the top of the vault folder
// vaultDir), making it first when create is set. A name that is a link,
// or not a folder, is refused (ErrLink, or an error saying it is no
// folder); nothing is made through it.
func Open(vaultDir, name string, create bool) (*Dir, error) {
	if strings.ContainsAny(name, `/\`) || name == "" || name == "." || name == ".." {
		return nil, &os.PathError{Op: "open", Path: name, Err: errName}
	}
	h, err := openHandle(vaultDir, name, create)
	if err != nil {
		return nil, err
	}
	return &Dir{name: name, h: h}, nil
}

// Name is the folder's path in the vault.
func (d *Dir) Name() string { return d.name }

// Close releases the handle.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.h.close()
}

// Same reports whether fi (the vault's Lstat of the folder's name) is the
// folder this Dir holds: a state folder removed, or swapped for another,
// since Open is not.
func (d *Dir) Same(fi fs.FileInfo) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	own, err := d.h.stat()
	return err == nil && fi != nil && sameFile(own, fi)
}

// Lstat describes name without following a link at any place of its path.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := d.do("lstat", name, func(h handle, name string) (err error) {
		fi, err = h.lstat(name)
		return err
	})
	return fi, err
}

// ReadDir lists the folder name (links in it are listed as links).
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	var es []fs.DirEntry
	err := d.do("readdir", name, func(h handle, name string) (err error) {
		es, err = h.readDir(name)
		return err
	})
	return es, err
}

// Mkdir makes the folder name; its parent must exist.
func (d *Dir) Mkdir(name string, perm fs.FileMode) error {
	return d.do("mkdir", name, func(h handle, name string) error { return h.mkdir(name, perm) })
}

// OpenFile opens name as os.OpenFile does, refusing a link in any place.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	var f *os.File
	err := d.do("open", name, func(h handle, name string) (err error) {
		f, err = h.openFile(name, flag, perm)
		return err
	})
	return f, err
}

// Remove removes the file, link or empty folder name; a link is removed
// as a name, never followed.
func (d *Dir) Remove(name string) error {
	return d.do("remove", name, func(h handle, name string) error { return h.remove(name) })
}

// Rename renames oldname to newname, both in this folder.
func (d *Dir) Rename(oldname, newname string) error {
	if err := check(newname); err != nil {
		return d.pathError("rename", newname, err)
	}
	return d.do("rename", oldname, func(h handle, oldname string) error { return h.rename(oldname, newname) })
}

// ReadFile reads the regular file name, refusing one over limit bytes.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, d.pathError("read", name, errors.New("not a regular file"))
	}
	if fi.Size() > limit {
		return nil, d.pathError("read", name, fmt.Errorf("%d bytes, over the limit of %d", fi.Size(), limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = d.pathError("read", name, fmt.Errorf("over the limit of %d bytes", limit))
	}
	return data, err
}

// Create writes data to the new file name atomically: a temporary file
// beside it, synced, then linked to the name, so a reader sees all of it
// or nothing, and an existing name is never clobbered (fs.ErrExist).
func (d *Dir) Create(name string, data []byte, perm fs.FileMode) error {
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+".tmp-"+rand.Text()[:12])
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.do("link", tmp, func(h handle, tmp string) error { return h.link(tmp, name) })
	}
	_ = d.Remove(tmp)
	return err
}

// MakeOwned makes the folder name (it must not exist) and writes mark
// into its OwnerFile, so that RemoveOwned with the same mark may later
// remove it. A folder made without its marker (a failed write) is
// removed again.
func (d *Dir) MakeOwned(name string, mark []byte, perm fs.FileMode) error {
	if len(mark) == 0 {
		return d.pathError("mkdir", name, errors.New("an empty owner's mark proves nothing"))
	}
	if err := d.Mkdir(name, perm); err != nil {
		return err
	}
	if err := d.Create(name+"/"+OwnerFile, mark, 0o600); err != nil {
		_ = d.Remove(name)
		return err
	}
	return nil
}

// Owned reports whether name is a folder (not a link) holding mark in its
// OwnerFile.
func (d *Dir) Owned(name string, mark []byte) bool {
	if fi, err := d.Lstat(name); err != nil || !fi.IsDir() {
		return false
	}
	got, err := d.ReadFile(name+"/"+OwnerFile, int64(len(mark)))
	return err == nil && len(mark) > 0 && bytes.Equal(got, mark)
}

// RemoveOwned removes the folder name if it holds mark (Owned), with the
// files and links in it; a folder in it is never entered, and keeps name
// (the error says so). Without the mark it is ErrNotOwned and nothing is
// removed.
func (d *Dir) RemoveOwned(name string, mark []byte) error {
	if !d.Owned(name, mark) {
		return d.pathError("remove", name, ErrNotOwned)
	}
	es, err := d.ReadDir(name)
	if err != nil {
		return err
	}
	var kept []string
	for _, e := range es {
		if e.Name() == OwnerFile {
			continue
		}
		if e.IsDir() {
			kept = append(kept, e.Name())
			continue
		}
		if err := d.Remove(name + "/" + e.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			kept = append(kept, e.Name())
		}
	}
	if len(kept) > 0 {
		return d.pathError("remove", name, fmt.Errorf("kept, as it holds what is not ours to remove: %s", strings.Join(kept, ", ")))
	}
	if err := d.Remove(name + "/" + OwnerFile); err != nil {
		return err
	}
	return d.Remove(name)
}

// do checks name and runs op on it with the handle.
func (d *Dir) do(op, name string, fn func(h handle, name string) error) error {
	if err := check(name); err != nil {
		return d.pathError(op, name, err)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := fn(d.h, name); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			// The path in the vault, so a message names what to remove.
			pe.Path = d.name + "/" + strings.TrimPrefix(pe.Path, "/")
			pe.Op = op
			return pe
		}
		return d.pathError(op, name, err)
	}
	return nil
}

func (d *Dir) pathError(op, name string, err error) error {
	return &os.PathError{Op: op, Path: d.name + "/" + name, Err: err}
}

// check refuses a name that is not a plain relative path: empty places,
// ".", "..", a leading slash, a backslash (a separator on Windows) or a
// NUL.
func check(name string) error {
	if name == "" || strings.ContainsAny(name, "\\:\x00") || strings.HasPrefix(name, "/") {
		return errName
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return errName
		}
	}
	return nil
}
