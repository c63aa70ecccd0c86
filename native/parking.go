package native

import (
	"context"
	"crypto/rand"
	"io/fs"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/native/statedir"
)

// parkingName, in StateDir, holds a folder per process for the files this
// process's updates displaced while a program may still be on its way to
// writing into one (atomicfile.Published.SetParking): there they have a
// name the update can exchange back to the note's, and none a tool lists
// or a sync client copies.
const parkingName = "displaced"

// parkingDir is parkingName's path in the vault.
const parkingDir = StateDir + "/" + parkingName

// parkingLock, in each process's folder, is locked by that process for as
// long as it lives: a folder whose lock can be taken belongs to a process
// that is gone, and is removed.
const parkingLock = "lock"

// parking is this process's folder under parkingDir.
type parking struct {
	dir  string // relative to StateDir; "" until made
	lock *statedir.Lock
}

// parkingMark is the marker a parking folder of this user's servers on
// this machine holds (statedir.MakeOwned): only such a folder is ever
// swept. One that came with the vault, whatever its name, is not ours.
func (v *Engine) parkingMark(dir string) []byte {
	return []byte(v.journal.mark("parking folder " + dir))
}

// makeParking removes the folders that processes now gone left under
// parkingDir and makes this process's own. It is called once, with the
// write lock held, so no other process is making or sweeping one. Every
// step goes through the state folder's handle: a link at parkingDir, or
// in it, is never followed. Without a folder, displaced files are watched
// unnamed, as before SetParking.
func (v *Engine) makeParking() {
	st := v.state()
	fi, err := st.Lstat(parkingName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = st.Mkdir(parkingName, 0o700)
	case err == nil && !fi.IsDir():
		err = &fs.PathError{Op: "open", Path: parkingDir, Err: errNotAFolder}
		if fi.Mode()&fs.ModeSymlink != 0 {
			err = &fs.PathError{Op: "open", Path: parkingDir, Err: statedir.ErrLink}
		}
	case err == nil:
		v.sweepParked()
	}
	dir := parkingName + "/" + rand.Text()[:12]
	if err == nil {
		err = st.MakeOwned(dir, v.parkingMark(dir), 0o700)
	}
	if err != nil {
		v.logger.Warn("no folder for displaced files; they are watched unnamed", "path", pathOf(err), "err", unwrapPath(err))
		return
	}
	l, err := st.OpenLock(dir+"/"+parkingLock, 0o600)
	if err == nil {
		if ok, lerr := l.TryLock(); !ok || lerr != nil {
			_ = l.Close()
			err = errors.New("its lock is held")
		}
	}
	if err != nil {
		_ = st.RemoveOwned(dir, v.parkingMark(dir))
		v.logger.Warn("no folder for displaced files; they are watched unnamed", "path", StateDir+"/"+dir, "err", err)
		return
	}
	v.parked = parking{dir: dir, lock: l}
	v.published.SetParking(StateDir + "/" + dir)
}

// sweepParked removes the parking folders of processes that are gone:
// those that hold this user's marker and whose lock can be taken. Anything
// else there (a link, a file, a folder without the marker) is left as it
// is, and said in the log once.
func (v *Engine) sweepParked() {
	st := v.state()
	entries, err := st.ReadDir(parkingName)
	if err != nil {
		return
	}
	var strange []string
	for _, e := range entries {
		dir := parkingName + "/" + e.Name()
		if !e.IsDir() || !st.Owned(dir, v.parkingMark(dir)) {
			strange = append(strange, e.Name())
			continue
		}
		l, err := st.OpenLock(dir+"/"+parkingLock, 0)
		if err == nil {
			ok, lerr := l.TryLock()
			_ = l.Close() // lets it go again
			if !ok || lerr != nil {
				continue // alive
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			strange = append(strange, e.Name()+"/"+parkingLock)
			continue
		}
		if err := st.RemoveOwned(dir, v.parkingMark(dir)); err != nil {
			v.logger.Warn("a parking folder of a process that is gone was not removed", "path", pathOf(err), "err", unwrapPath(err))
		}
	}
	if len(strange) > 0 {
		v.logger.Warn("left alone in the folder of displaced files: not made by this user's servers here", "dir", parkingDir, "names", strings.Join(strange, ", "))
	}
}

// closeParking removes this process's parking folder; the watch has let
// go of every file in it (Published.Flush). It takes the write lock, as
// every use of the state folder does; a folder it cannot remove (the lock
// is not granted in time) is swept by the next process, as its lock is
// let go here.
func (v *Engine) closeParking() {
	if v.parked.dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	release, err := v.lock.acquire(ctx, v)
	lock := v.parked.lock
	if err == nil {
		st := v.state()
		_ = lock.Close()
		_ = st.RemoveOwned(v.parked.dir, v.parkingMark(v.parked.dir))
		_ = st.Remove(parkingName) // only when empty
		release()
	} else {
		_ = lock.Close()
	}
	v.parked = parking{}
}

// oldIndexName is where earlier versions kept the saved search index, in
// StateDir, where sync clients uploaded it (100 MB at 100,000 notes) each
// time it was saved. It now lives in the user's cache folder.
const oldIndexName = "index"

// oldIndexDir is oldIndexName's path in the vault.
const oldIndexDir = StateDir + "/" + oldIndexName

// oldIndexFile reports whether name is a file an older version wrote in
// its index folder: only those are removed from it.
func oldIndexFile(name string) bool {
	switch name {
	case snapshotFile, ".gitignore", "lock", "build.lock":
		return true
	}
	return strings.HasPrefix(name, snapshotFile+"-") && strings.HasSuffix(name, ".tmp")
}

// removeOldIndex removes an index an older version left in the vault: its
// files, by name, and then the folder if nothing else is in it. It is
// called once, with the write lock held.
func (v *Engine) removeOldIndex() {
	st := v.state()
	fi, err := st.Lstat(oldIndexName)
	if err != nil || !fi.IsDir() {
		return
	}
	entries, err := st.ReadDir(oldIndexName)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type().IsRegular() && oldIndexFile(e.Name()) {
			_ = st.Remove(oldIndexName + "/" + e.Name())
		}
	}
	if err := st.Remove(oldIndexName); err != nil {
		v.logger.Warn("cannot remove the search index an older version kept in the vault; what is left is not an index's", "dir", oldIndexDir, "err", unwrapPath(err))
		return
	}
	v.logger.Info("removed the search index an older version kept in the vault; it is kept in the user's cache folder now", "dir", oldIndexDir)
}
