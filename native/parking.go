package native

import (
	"crypto/rand"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// parkingDir holds, a folder per process, the files this process's
// updates displaced while a program may still be on its way to writing
// into one (atomicfile.Published.SetParking): there they have a name the
// update can exchange back to the note's, and none a tool lists or a sync
// client copies.
const parkingDir = StateDir + "/displaced"

// parkingLock, in each process's folder, is locked by that process for as
// long as it lives: a folder whose lock can be taken belongs to a process
// that is gone, and is removed.
const parkingLock = "lock"

// parking is this process's folder under parkingDir.
type parking struct {
	dir  string // relative to the vault; "" until made
	lock *flock.Flock
}

// makeParking removes the folders that processes now gone left under
// parkingDir and makes this process's own. It is called once, with the
// write lock held (so no other process is making or sweeping one) and
// StateDir checked to be a real folder. Without a folder, displaced files
// are watched unnamed, as before SetParking.
func (v *Engine) makeParking() {
	entries, _ := fs.ReadDir(v.rootFS(), parkingDir)
	for _, e := range entries {
		if e.IsDir() {
			v.sweepParked(parkingDir + "/" + e.Name())
		}
	}
	dir := parkingDir + "/" + rand.Text()[:12]
	if err := v.root.MkdirAll(dir, 0o700); err != nil || !realFolder(v.root, parkingDir) {
		v.logger.Debug("no folder for displaced files", "err", err)
		return
	}
	l := flock.New(filepath.Join(v.dir, filepath.FromSlash(dir+"/"+parkingLock)), flock.SetPermissions(0o600), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow))
	if ok, err := l.TryLock(); !ok || err != nil {
		_ = v.root.RemoveAll(dir)
		return
	}
	v.parked = parking{dir: dir, lock: l}
	v.published.SetParking(dir)
}

// sweepParked removes dir, a process's parking folder, if that process is
// gone.
func (v *Engine) sweepParked(dir string) {
	if !realFolder(v.root, dir) {
		return
	}
	l := flock.New(filepath.Join(v.dir, filepath.FromSlash(dir+"/"+parkingLock)), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow))
	if ok, err := l.TryLock(); !ok || err != nil {
		return // alive
	}
	_ = v.root.RemoveAll(dir)
	_ = l.Close()
}

// closeParking removes this process's parking folder; the watch has let
// go of every file in it (Published.Flush).
func (v *Engine) closeParking() {
	if v.parked.dir == "" {
		return
	}
	_ = v.root.RemoveAll(v.parked.dir)
	_ = v.parked.lock.Close()
	_ = v.root.Remove(parkingDir) // only when empty
	v.parked = parking{}
}

// realFolder reports whether name is a folder and not a symlink to one.
func realFolder(root *os.Root, name string) bool {
	fi, err := root.Lstat(name)
	return err == nil && fi.IsDir()
}

// oldIndexDir is where earlier versions kept the saved search index,
// inside the vault, where sync clients uploaded it (100 MB at 100,000
// notes) each time it was saved. It now lives in the user's cache folder.
const oldIndexDir = StateDir + "/index"

// removeOldIndex removes an index an older version left in the vault. It
// is called once, with the write lock held and StateDir checked.
func (v *Engine) removeOldIndex() {
	if !realFolder(v.root, oldIndexDir) {
		return
	}
	if err := v.root.RemoveAll(oldIndexDir); err != nil {
		v.logger.Warn("cannot remove the search index an older version kept in the vault", "dir", oldIndexDir, "err", err)
		return
	}
	v.logger.Info("removed the search index an older version kept in the vault; it is kept in the user's cache folder now", "dir", oldIndexDir)
}
