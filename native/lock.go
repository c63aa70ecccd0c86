package native

import (
	"context"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// StateDir is the folder, inside the vault, where the server keeps what
// its processes share: the write lock and the journal of vault-wide edits.
// Its name starts with '.', so Obsidian, its sync and the tools leave it
// alone.
const StateDir = ".obsidian-mcp"

// lockFile is the file every server process on the vault locks before it
// writes, under StateDir.
const lockFile = StateDir + "/lock"

// writeLock serialises the writes of every obsidian-mcp process on one
// vault (Claude Desktop, Claude Code and Cursor each start their own) and
// of every goroutine in this one. Each write holds it from the read it
// builds on to the rename that publishes it, so no process of ours can
// build on content another is about to replace, and a compare-and-swap
// (atomicfile.Update) only ever races programs that take no lock.
//
// Across processes it is an advisory lock on one file (flock(2) on Unix,
// LockFileEx on Windows, through gofrs/flock): the system releases it when
// its holder dies, even by SIGKILL, so a crash never leaves the vault
// locked. Within the process a one-slot channel comes first, so a waiter
// can give up when its call is cancelled.
type writeLock struct {
	slot chan struct{}
	file *flock.Flock
	made bool // StateDir exists; written holding the slot
}

func newWriteLock(vaultDir string) *writeLock {
	return &writeLock{
		slot: make(chan struct{}, 1),
		file: flock.New(filepath.Join(vaultDir, filepath.FromSlash(lockFile)), flock.SetPermissions(0o644), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollow)),
	}
}

// acquire waits for the lock until ctx ends. The returned function
// releases it.
func (l *writeLock) acquire(ctx context.Context, v *Engine) (release func(), err error) {
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if !l.made {
		// Once per process: the folder is never removed.
		if err := v.root.MkdirAll(StateDir, 0o755); err != nil {
			<-l.slot
			return nil, lockError(err)
		}
		l.made = true
	}
	// Every time: a state folder swapped for a symlink (to a folder
	// elsewhere, or to a visible one the journal would then be read
	// from) is refused, not followed.
	if err := checkStateDir(v.root); err != nil {
		<-l.slot
		return nil, lockError(err)
	}
	release = func() {
		_ = l.file.Unlock()
		<-l.slot
	}
	if ok, err := l.file.TryLock(); ok && err == nil {
		return release, nil // uncontended: no goroutine to wait on
	}
	// flock blocks without a way to cancel it, so it waits on its own
	// goroutine; a caller that gives up leaves it to release the lock,
	// and the slot, once it is granted.
	got := make(chan error, 1)
	go func() { got <- l.file.Lock() }()
	select {
	case err := <-got:
		if err != nil {
			<-l.slot
			return nil, lockError(err)
		}
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				_ = l.file.Unlock()
			}
			<-l.slot
		}()
		return nil, ctx.Err()
	}
	return release, nil
}

// checkStateDir makes sure StateDir is a real folder at the vault's top.
func checkStateDir(root *os.Root) error {
	fi, err := root.Lstat(StateDir)
	if err == nil && !fi.IsDir() {
		err = &os.PathError{Op: "open", Path: StateDir, Err: errNotAFolder}
	}
	return err
}

func lockError(err error) error {
	if k, ok := errors.Resource(err); ok {
		return errors.E(k, "cannot take the vault's write lock (%s): %v", lockFile, unwrapPath(err)).WithCause(err).WithHint(errors.From(err).Hint)
	}
	return errors.E(errors.PermissionDenied, "cannot take the vault's write lock (%s): %v", lockFile, unwrapPath(err)).WithCause(err).
		WithHint("The server keeps its lock and journal in the folder " + StateDir + " at the vault's top; the user running it must be able to create and write it. Run with --read-only if the vault must not be written.")
}
