//go:build !unix

package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// nonBlock has no equivalent here: Windows has no FIFOs in the file
// system to wait on.
const nonBlock = 0

// handle is an os.Root of the state folder. Windows offers no open that
// refuses a link at every place of a path, so each place is looked at
// (Lstat, through the root) before it is used, and refused when it is a
// link or a junction (ModeIrregular since Go 1.23); the root still keeps
// a link made between the look and the use from leading out of the
// folder.
type handle struct{ r *os.Root }

func openHandle(vaultDir, name string, create bool) (handle, error) {
	v, err := os.OpenRoot(vaultDir)
	if err != nil {
		return handle{}, err
	}
	defer v.Close()
	if create {
		if err := v.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return handle{}, err
		}
	}
	fi, err := v.Lstat(name)
	if err != nil {
		return handle{}, err
	}
	if err := plainFolder(fi); err != nil {
		return handle{}, &os.PathError{Op: "open", Path: name, Err: err}
	}
	r, err := v.OpenRoot(name)
	if err != nil {
		return handle{}, err
	}
	// The root is the folder just looked at, not a link put there since.
	if now, err := r.Stat("."); err != nil || !os.SameFile(now, fi) {
		_ = r.Close()
		return handle{}, &os.PathError{Op: "open", Path: name, Err: errors.New("changed while it was opened")}
	}
	return handle{r: r}, nil
}

// plainFolder refuses a link, a junction, or what is not a folder.
func plainFolder(fi fs.FileInfo) error {
	switch {
	case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return ErrLink
	case !fi.IsDir():
		return errors.New("not a folder")
	}
	return nil
}

func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }

func (h handle) close() error { return h.r.Close() }

func (h handle) stat() (fs.FileInfo, error) { return h.r.Stat(".") }

// folders checks that every folder on name's way is a plain one.
func (h handle) folders(name string) error {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		p := path.Join(parts[:i]...)
		fi, err := h.r.Lstat(p)
		if err != nil {
			return err
		}
		if err := plainFolder(fi); err != nil {
			return &os.PathError{Path: p, Err: err}
		}
	}
	return nil
}

// last refuses name when it is a link (it may be missing).
func (h handle) last(name string) error {
	fi, err := h.r.Lstat(name)
	if err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return &os.PathError{Path: name, Err: ErrLink}
	}
	return nil
}

func (h handle) lstat(name string) (fs.FileInfo, error) {
	if err := h.folders(name); err != nil {
		return nil, err
	}
	return h.r.Lstat(name)
}

func (h handle) readDir(name string) ([]fs.DirEntry, error) {
	if err := h.folders(name + "/x"); err != nil {
		return nil, err
	}
	f, err := h.r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (h handle) mkdir(name string, perm fs.FileMode) error {
	if err := h.folders(name); err != nil {
		return err
	}
	return h.r.Mkdir(name, perm)
}

func (h handle) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := h.folders(name); err != nil {
		return nil, err
	}
	if err := h.last(name); err != nil {
		return nil, err
	}
	return h.r.OpenFile(name, flag, perm)
}

func (h handle) remove(name string) error {
	if err := h.folders(name); err != nil {
		return err
	}
	// Removing a link removes the link, not what it leads to.
	return h.r.Remove(name)
}

func (h handle) rename(oldname, newname string) error {
	if err := h.folders(oldname); err != nil {
		return err
	}
	if err := h.folders(newname); err != nil {
		return err
	}
	return h.r.Rename(oldname, newname)
}

func (h handle) link(oldname, newname string) error {
	if err := h.folders(oldname); err != nil {
		return err
	}
	if err := h.folders(newname); err != nil {
		return err
	}
	if err := h.last(oldname); err != nil {
		return err
	}
	return h.r.Link(oldname, newname)
}
