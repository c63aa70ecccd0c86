// Package atomicfile writes files inside an os.Root so that a reader, a
// crash or a kill never sees a half-written file: data goes to a temporary
// file in the same folder, is synced, and is then renamed (or linked) into
// place. Working through os.Root keeps every name inside the root, symlinks
// included.
package atomicfile

import (
	"crypto/rand"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// DefaultPerm is the mode of files this package creates.
const DefaultPerm fs.FileMode = 0o644

// Replace atomically sets name's content to data, creating it (and its
// folders) if needed. An existing file keeps its mode, and one its owner
// may not write (read-only) is refused with fs.ErrPermission: a rename
// would otherwise replace it, which a plain write could not.
func Replace(root *os.Root, name string, data []byte) error {
	perm := DefaultPerm
	if fi, err := root.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return &fs.PathError{Op: "replace", Path: name, Err: errors.New("not a regular file")}
		}
		perm = fi.Mode().Perm()
		if perm&0o200 == 0 {
			return &fs.PathError{Op: "replace", Path: name, Err: fs.ErrPermission}
		}
	}
	return Put(root, name, data, perm)
}

// Put atomically sets name's content to data with mode perm exactly,
// whatever a file there had: for files this program alone writes (its
// own state, kept private with 0o600), creating it and its folders if
// needed.
func Put(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(root, name, data, perm)
	if err != nil {
		return err
	}
	if err := renameOver(root, tmp, name); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	syncDir(root, path.Dir(name))
	return nil
}

// PutFile is Put for a file named by its path: its folder is the root.
func PutFile(file string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return err
	}
	defer root.Close()
	return Put(root, filepath.Base(file), data, perm)
}

// Create atomically creates name with data and fails with an error matching
// fs.ErrExist when name exists: it never clobbers. Missing folders are made.
func Create(root *os.Root, name string, data []byte) error {
	tmp, err := writeTemp(root, name, data, DefaultPerm)
	if err != nil {
		return err
	}
	defer func() { _ = root.Remove(tmp) }()
	// A hard link is an atomic "rename unless the target exists".
	err = root.Link(tmp, name)
	if err == nil || errors.Is(err, fs.ErrExist) {
		if err == nil {
			syncDir(root, path.Dir(name))
		}
		return err
	}
	// Some file systems (FAT, some network mounts) have no hard links.
	// O_EXCL still guarantees no clobbering; a failed write is removed.
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, DefaultPerm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = root.Remove(name)
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = root.Remove(name)
		return err
	}
	return f.Close()
}

// writeTemp writes data to a new hidden temporary file beside name and
// returns its name.
func writeTemp(root *os.Root, name string, data []byte, perm fs.FileMode) (string, error) {
	dir := path.Dir(name)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	tmp := tempBeside(name)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		// The umask may have narrowed perm; the kept mode must be exact.
		werr = root.Chmod(tmp, perm)
	}
	if werr != nil {
		_ = root.Remove(tmp)
		return "", werr
	}
	return tmp, nil
}

// tempBeside is a new temporary name beside name, of the form recovery
// sweeps (".<name>.tmp-" and 12 base32 characters).
func tempBeside(name string) string {
	return path.Join(path.Dir(name), "."+path.Base(name)+".tmp-"+rand.Text()[:12])
}

// syncDir makes a rename durable; failure only weakens durability, so it is
// ignored (some platforms cannot sync directories).
func syncDir(root *os.Root, dir string) {
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
