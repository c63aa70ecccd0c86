package native

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

const snapshotFile = "snapshot"

// WithSavedIndex keeps the search index between runs, so that a restart
// reads again only the notes that changed: under base (CacheIndexBase by
// default), in a folder of its own for each vault, named by a hash of the
// vault's path. Without this option the index lives in memory only.
func WithSavedIndex(base string) Option {
	return func(o *options) {
		if base == "" {
			base, _ = CacheIndexBase()
		}
		o.indexDir, o.keepIndex = base, base != ""
	}
}

// WithSearchPatience sets how long a search waits for a large index build
// before it answers from the notes indexed so far
// (vaultindex.WithPatience); 0 keeps the index's default.
func WithSearchPatience(d time.Duration) Option {
	return func(o *options) { o.patience = d }
}

// CacheIndexBase is the default base folder (WithSavedIndex), in the
// user's cache folder.
func CacheIndexBase() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "obsidian-mcp", "index"), nil
}

// indexPlace is where the vault's index is kept (WithSavedIndex), and the
// tag its snapshots carry: the vault's absolute path.
func (v *Engine) indexPlace() (dir, tag string) {
	abs, err := filepath.Abs(v.dir)
	if err != nil {
		abs = v.dir
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(v.indexDir, hex.EncodeToString(sum[:8])), abs
}

// indexStore keeps the index's snapshot as one file, replaced by a rename
// so that a reader gets a whole snapshot, old or new. Publishers, in any
// process, take a lock of their own (not the vault's write lock, which
// edits would then wait on), and one that finds it taken leaves the
// saving to the holder.
//
// Every file in dir is reached through an os.Root on dir, and the lock
// files are opened without following a symlink: a link planted there
// (dir may be inside a synced vault) cannot have the server write, create
// or delete files elsewhere.
type indexStore struct {
	dir  string
	lock *flock.Flock
	// build is held by the process building the index afresh
	// (vaultindex.Builds), a lock of its own, as it is held for seconds.
	build *flock.Flock
}

func newIndexStore(dir string) *indexStore {
	return &indexStore{dir: dir,
		lock:  flock.New(filepath.Join(dir, "lock"), flock.SetPermissions(0o644), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow)),
		build: flock.New(filepath.Join(dir, "build.lock"), flock.SetPermissions(0o644), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow))}
}

// root makes dir if needed and opens it as a root; dir itself must be a
// real folder, not a symlink to one.
func (s *indexStore) root() (*os.Root, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(s.dir); err != nil || !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: s.dir, Err: errNotAFolder}
	}
	return os.OpenRoot(s.dir)
}

// errNotAFolder is a state folder that is a symlink or a file.
var errNotAFolder = errors.New("not a folder (a symlink is not followed here)")

// TryBuild implements vaultindex.Builds. A folder that cannot be made or
// locked leaves this process to build alone.
func (s *indexStore) TryBuild() (release func(), ok bool) {
	r, err := s.root()
	if err != nil {
		return func() {}, true
	}
	_ = r.Close()
	got, err := s.build.TryLock()
	if err != nil {
		return func() {}, true
	}
	if !got {
		return nil, false
	}
	return func() { _ = s.build.Unlock() }, true
}

// WaitBuilt implements vaultindex.Builds: flock has no timeout, so the
// wait runs on its own goroutine, which lets the lock go as soon as it
// has it, whenever that is.
func (s *indexStore) WaitBuilt(ctx context.Context) error {
	got := make(chan error, 1)
	go func() {
		l := flock.New(s.build.Path(), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow))
		err := l.RLock()
		if err == nil {
			_ = l.Unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *indexStore) Open() (io.ReadSeekCloser, error) { return openSnapshot(s.dir) }

// scratchPrefix names the index's scratch files (vaultindex.Scratch).
const scratchPrefix = "positions-"

// ScratchFile implements vaultindex.Scratch: a new file in the index's
// folder, removed as soon as it is open, so that a process killed leaves
// nothing behind: it lives on, nameless, until closed or the process ends
// (on Windows, opened sharing deletion as os.Root opens, it is deleted when
// its last handle closes; until then its name may stay, under the classic
// delete rules). Files left by a system that crashed are removed when the
// next is made.
func (s *indexStore) ScratchFile() (*os.File, error) {
	r, err := s.root()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if d, err := r.Open("."); err == nil {
		names, _ := d.Readdirnames(-1)
		_ = d.Close()
		for _, n := range names {
			if strings.HasPrefix(n, scratchPrefix) {
				_ = r.Remove(n)
			}
		}
	}
	name := scratchPrefix + rand.Text()[:12]
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return nil, err
	}
	_ = r.Remove(name)
	return f, nil
}

// openSnapshot opens the snapshot in dir, a regular file reached without
// a symlink.
func openSnapshot(dir string) (*os.File, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return openRegular(r, snapshotFile, noFollow)
}

func (s *indexStore) Publish(write func(io.Writer) error) (err error) {
	r, err := s.root()
	if err != nil {
		return err
	}
	defer r.Close()
	ok, err := s.lock.TryLock()
	if err != nil {
		return err
	}
	if !ok {
		return vaultindex.ErrBusy
	}
	defer func() { _ = s.lock.Unlock() }()
	// What a publisher killed mid-write left: no one else writes here
	// while the lock is held.
	if d, err := r.Open("."); err == nil {
		names, _ := d.Readdirnames(-1)
		_ = d.Close()
		for _, n := range names {
			if strings.HasPrefix(n, snapshotFile+"-") && strings.HasSuffix(n, ".tmp") {
				_ = r.Remove(n)
			}
		}
	}
	// A vault kept in git (the obsidian-git plugin commits everything)
	// should not carry the index.
	if _, err := r.Lstat(".gitignore"); errors.Is(err, fs.ErrNotExist) {
		if f, err := r.OpenFile(".gitignore", os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644); err == nil {
			_, _ = f.WriteString("# obsidian-mcp's search index: rebuilt from the notes, never worth keeping\n*\n")
			_ = f.Close()
		}
	}
	tmp := snapshotFile + "-" + rand.Text()[:12] + ".tmp"
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = r.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return r.Rename(tmp, snapshotFile)
}

// openRegular opens name inside r for reading, without waiting (a FIFO
// would block the open) and refusing anything but a regular file; extra
// is noFollow to refuse a symlink too, or 0.
func openRegular(r *os.Root, name string, extra int) (*os.File, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|nonBlock|extra, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		if err == nil {
			err = &os.PathError{Op: "open", Path: name, Err: atomicfile.ErrNotRegular}
		}
		return nil, err
	}
	return f, nil
}

// readCapped reads the file openRegular opens, refusing one over limit
// bytes.
func readCapped(r *os.Root, name string, extra int, limit int64) ([]byte, error) {
	f, err := openRegular(r, name, extra)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &os.PathError{Op: "read", Path: name, Err: fmt.Errorf("%d bytes, over the limit of %d", fi.Size(), limit)}
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// IndexState is where the vault's search index is kept between runs, and
// what is there (for doctor).
type IndexState struct {
	Kept bool   // false: in memory only
	Dir  string // where
	// Saved is false when there is no saved index yet; Info and Size
	// describe it, Err says why it would not be used.
	Saved bool
	Info  vaultindex.SnapshotInfo
	Size  int64
	Err   error
}

// IndexState reads the saved index through (checking it as a start
// would, without keeping it) and says where it is and what it holds.
func (v *Engine) IndexState() IndexState {
	if !v.keepIndex {
		return IndexState{}
	}
	dir, tag := v.indexPlace()
	st := IndexState{Kept: true, Dir: dir}
	f, err := openSnapshot(dir)
	if err != nil {
		if !os.IsNotExist(err) {
			st.Saved, st.Err = true, err
		}
		return st
	}
	defer f.Close()
	st.Saved = true
	if fi, err := f.Stat(); err == nil {
		st.Size = fi.Size()
	}
	st.Info, st.Err = vaultindex.CheckSnapshot(f, tag)
	return st
}
