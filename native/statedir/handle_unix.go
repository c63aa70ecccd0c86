//go:build unix

package statedir

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nonBlock keeps an open of a FIFO from waiting for a writer (it is then
// refused as not a regular file).
const nonBlock = syscall.O_NONBLOCK

// handle is an open descriptor of the state folder. Every name is walked
// from it a folder at a time with O_NOFOLLOW, so a link anywhere on the
// way fails the call (ELOOP, or ENOTDIR for a link to a file) instead of
// being followed.
type handle struct{ fd int }

func openHandle(vaultDir, name string, create bool) (handle, error) {
	vfd, err := unix.Open(vaultDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return handle{}, &os.PathError{Op: "open", Path: vaultDir, Err: err}
	}
	defer unix.Close(vfd)
	if create {
		if err := unix.Mkdirat(vfd, name, 0o755); err != nil && err != unix.EEXIST {
			return handle{}, &os.PathError{Op: "mkdir", Path: name, Err: err}
		}
	}
	fd, err := openDir(vfd, name)
	if err != nil {
		return handle{}, &os.PathError{Op: "open", Path: name, Err: linkError(vfd, name, err)}
	}
	return handle{fd: fd}, nil
}

// openDir opens the folder name of dirfd, refusing a link.
func openDir(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// linkError says what err, an open's failure with O_NOFOLLOW, means: a
// link is ErrLink, whatever the system's errno for it.
func linkError(dirfd int, name string, err error) error {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return ErrLink
	}
	if err == unix.ENOTDIR {
		return errors.New("not a folder")
	}
	return err
}

func (h handle) close() error { return unix.Close(h.fd) }

// parent opens the folder that holds name's last place, walking from the
// handle; done closes it.
func (h handle) parent(name string) (dirfd int, base string, done func(), err error) {
	dirs, base := splitLast(name)
	dirfd, done = h.fd, func() {}
	walked := ""
	for _, part := range dirs {
		fd, err := openDir(dirfd, part)
		if err != nil {
			err = linkError(dirfd, part, err)
			done()
			return -1, "", nil, &os.PathError{Path: walked + part, Err: err}
		}
		done()
		dirfd, done = fd, func() { unix.Close(fd) }
		walked += part + "/"
	}
	return dirfd, base, done, nil
}

func splitLast(name string) ([]string, string) {
	parts := strings.Split(name, "/")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// sameFile reports whether a and b, from Lstat or Fstat, are one file.
func sameFile(a, b fs.FileInfo) bool {
	da, ia, ok1 := devIno(a)
	db, ib, ok2 := devIno(b)
	return ok1 && ok2 && da == db && ia == ib
}

func devIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	switch st := fi.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), true
	case *unix.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), true
	}
	return 0, 0, false
}

func (h handle) stat() (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstat(h.fd, &st); err != nil {
		return nil, err
	}
	return newInfo(".", &st), nil
}

func (h handle) lstat(name string) (fs.FileInfo, error) {
	dfd, base, done, err := h.parent(name)
	if err != nil {
		return nil, err
	}
	defer done()
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &os.PathError{Path: name, Err: err}
	}
	return newInfo(base, &st), nil
}

func (h handle) readDir(name string) ([]fs.DirEntry, error) {
	dfd, base, done, err := h.parent(name)
	if err != nil {
		return nil, err
	}
	defer done()
	fd, err := openDir(dfd, base)
	if err != nil {
		return nil, &os.PathError{Path: name, Err: linkError(dfd, base, err)}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return f.ReadDir(-1)
}

func (h handle) mkdir(name string, perm fs.FileMode) error {
	dfd, base, done, err := h.parent(name)
	if err != nil {
		return err
	}
	defer done()
	if err := unix.Mkdirat(dfd, base, uint32(perm.Perm())); err != nil {
		return &os.PathError{Path: name, Err: err}
	}
	return nil
}

func (h handle) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	dfd, base, done, err := h.parent(name)
	if err != nil {
		return nil, err
	}
	defer done()
	for {
		fd, err := unix.Openat(dfd, base, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if err == unix.ELOOP || err == unix.EMLINK {
				err = linkError(dfd, base, err)
			}
			return nil, &os.PathError{Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

func (h handle) remove(name string) error {
	dfd, base, done, err := h.parent(name)
	if err != nil {
		return err
	}
	defer done()
	// unlinkat never follows the last place: a link goes as a name.
	err = unix.Unlinkat(dfd, base, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		if rerr := unix.Unlinkat(dfd, base, unix.AT_REMOVEDIR); rerr != unix.ENOTDIR {
			err = rerr
		}
	}
	if err != nil {
		return &os.PathError{Path: name, Err: err}
	}
	return nil
}

func (h handle) rename(oldname, newname string) error {
	return h.pair(oldname, newname, func(ofd int, obase string, nfd int, nbase string) error {
		return unix.Renameat(ofd, obase, nfd, nbase)
	})
}

func (h handle) link(oldname, newname string) error {
	// linkat without AT_SYMLINK_FOLLOW links the name itself.
	return h.pair(oldname, newname, func(ofd int, obase string, nfd int, nbase string) error {
		return unix.Linkat(ofd, obase, nfd, nbase, 0)
	})
}

// pair runs a call on two names, each from its own parent folder.
func (h handle) pair(oldname, newname string, call func(ofd int, obase string, nfd int, nbase string) error) error {
	ofd, obase, odone, err := h.parent(oldname)
	if err != nil {
		return err
	}
	defer odone()
	nfd, nbase, ndone, err := h.parent(newname)
	if err != nil {
		return err
	}
	defer ndone()
	if err := call(ofd, obase, nfd, nbase); err != nil {
		return &os.PathError{Path: newname, Err: err}
	}
	return nil
}

// info is an fs.FileInfo of a Stat_t, as os.Lstat would give.
type info struct {
	name string
	st   unix.Stat_t
}

func newInfo(name string, st *unix.Stat_t) info { return info{name: name, st: *st} }

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return i.st.Size }
func (i info) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFREG:
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	default:
		m |= fs.ModeIrregular
	}
	return m
}
func (i info) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i info) IsDir() bool        { return i.Mode().IsDir() }
func (i info) Sys() any           { return &i.st }
