package statedir

import (
	"errors"
	"io/fs"
	"os"
)

// Lock is an advisory lock on one file of the state folder: the system
// releases it when its holder dies, even by SIGKILL.
type Lock struct{ f *os.File }

// OpenLock opens the lock file name, making it with perm unless perm is
// 0; it is refused when it, or a folder on its way, is a link, or when it
// is not a regular file.
func (d *Dir) OpenLock(name string, perm fs.FileMode) (*Lock, error) {
	flag := os.O_RDONLY | nonBlock
	if perm != 0 {
		flag |= os.O_CREATE
	}
	f, err := d.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, d.pathError("open", name, errors.New("not a regular file"))
	}
	return &Lock{f: f}, nil
}

// TryLock takes the lock if no one holds it, without waiting.
func (l *Lock) TryLock() (bool, error) { return tryLock(l.f) }

// Lock waits for the lock; it cannot be cancelled.
func (l *Lock) Lock() error { return lock(l.f) }

// Unlock lets the lock go; the file stays open.
func (l *Lock) Unlock() error { return unlock(l.f) }

// Close closes the file, which lets the lock go.
func (l *Lock) Close() error { return l.f.Close() }

// LockOf is the lock of a file opened elsewhere (through an os.Root),
// which must be a regular file; closing the file lets the lock go.
func LockOf(f *os.File) *Lock { return &Lock{f: f} }
