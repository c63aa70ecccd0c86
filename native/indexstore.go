package native

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// IndexDir is where, under StateDir, the search index is kept between runs
// by default (WithSavedIndex).
const IndexDir = StateDir + "/index"

const snapshotFile = "snapshot"

// WithSavedIndex keeps the search index between runs, so that a restart
// reads again only the notes that changed: under base, in a folder of its
// own for each vault (named by a hash of the vault's path), or, with base
// "", in the vault's own IndexDir. Without this option the index lives in
// memory only.
func WithSavedIndex(base string) Option {
	return func(o *options) { o.indexDir, o.keepIndex = base, true }
}

// WithSearchPatience sets how long a search waits for a large index build
// before it answers from the notes indexed so far
// (vaultindex.WithPatience); 0 keeps the index's default.
func WithSearchPatience(d time.Duration) Option {
	return func(o *options) { o.patience = d }
}

// CacheIndexBase is the base folder (WithSavedIndex) in the user's cache
// folder, for vaults the server must not write.
func CacheIndexBase() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "obsidian-mcp", "index"), nil
}

// indexDir is where the vault's index is kept (WithSavedIndex), and the
// tag its snapshots carry: the vault's absolute path.
func (v *Engine) indexPlace() (dir, tag string) {
	abs, err := filepath.Abs(v.dir)
	if err != nil {
		abs = v.dir
	}
	if v.indexDir == "" {
		return filepath.Join(v.dir, filepath.FromSlash(IndexDir)), abs
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(v.indexDir, hex.EncodeToString(sum[:8])), abs
}

// indexStore keeps the index's snapshot as one file, replaced by a rename
// so that a reader gets a whole snapshot, old or new. Publishers, in any
// process, take a lock of their own (not the vault's write lock, which
// edits would then wait on), and one that finds it taken leaves the
// saving to the holder.
type indexStore struct {
	dir  string
	lock *flock.Flock
	// build is held by the process building the index afresh
	// (vaultindex.Builds), a lock of its own, as it is held for seconds.
	build *flock.Flock
}

func newIndexStore(dir string) *indexStore {
	return &indexStore{dir: dir,
		lock:  flock.New(filepath.Join(dir, "lock"), flock.SetPermissions(0o644)),
		build: flock.New(filepath.Join(dir, "build.lock"), flock.SetPermissions(0o644))}
}

// TryBuild implements vaultindex.Builds. A folder that cannot be made or
// locked leaves this process to build alone.
func (s *indexStore) TryBuild() (release func(), ok bool) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return func() {}, true
	}
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
		l := flock.New(s.build.Path())
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

func (s *indexStore) Open() (io.ReadSeekCloser, error) {
	return os.Open(filepath.Join(s.dir, snapshotFile))
}

func (s *indexStore) Publish(write func(io.Writer) error) (err error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
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
	if old, _ := filepath.Glob(filepath.Join(s.dir, snapshotFile+"-*.tmp")); len(old) > 0 {
		for _, p := range old {
			_ = os.Remove(p)
		}
	}
	// A vault kept in git (the obsidian-git plugin commits everything)
	// should not carry the index.
	ignore := filepath.Join(s.dir, ".gitignore")
	if _, err := os.Stat(ignore); os.IsNotExist(err) {
		_ = os.WriteFile(ignore, []byte("# obsidian-mcp's search index: rebuilt from the notes, never worth keeping\n*\n"), 0o644)
	}
	f, err := os.CreateTemp(s.dir, snapshotFile+"-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
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
	return os.Rename(f.Name(), filepath.Join(s.dir, snapshotFile))
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
	f, err := os.Open(filepath.Join(dir, snapshotFile))
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
