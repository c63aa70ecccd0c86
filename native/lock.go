package native

import (
	"context"
	"io/fs"
	"os"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/native/statedir"
)

// StateDir is the folder, inside the vault, where the server keeps what
// its processes share: the write lock and the journal of vault-wide edits.
// Its name starts with '.', so Obsidian, its sync and the tools leave it
// alone. Every file in it is reached through one handle of it
// (statedir.Dir), never through a link: the folder arrives with the vault,
// and so may anything a clone or a sync put there.
const StateDir = ".obsidian-mcp"

// lockName is the file every server process on the vault locks before it
// writes, in StateDir.
const lockName = "lock"

// lockFile is lockName's path in the vault, for messages.
const lockFile = StateDir + "/" + lockName

// writeLock serialises the writes of every obsidian-mcp process on one
// vault (Claude Desktop, Claude Code and Cursor each start their own) and
// of every goroutine in this one. Each write holds it from the read it
// builds on to the rename that publishes it, so no process of ours can
// build on content another is about to replace, and a compare-and-swap
// (atomicfile.Update) only ever races programs that take no lock.
//
// Across processes it is an advisory lock on one file (flock(2) on Unix,
// LockFileEx on Windows): the system releases it when its holder dies,
// even by SIGKILL, so a crash never leaves the vault locked. Within the
// process a one-slot channel comes first, so a waiter can give up when
// its call is cancelled.
type writeLock struct {
	slot chan struct{}
	// state is the state folder's handle, opened at the first write and
	// again when the folder is removed or replaced; written holding the
	// slot, and read by whoever holds it.
	state *statedir.Dir
}

func newWriteLock() *writeLock {
	return &writeLock{slot: make(chan struct{}, 1)}
}

// acquire waits for the lock until ctx ends. The returned function
// releases it.
func (l *writeLock) acquire(ctx context.Context, v *Engine) (release func(), err error) {
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	file, err := l.open(v)
	if err != nil {
		<-l.slot
		return nil, lockError(err)
	}
	let := func() {
		_ = file.Close() // lets the lock go
		<-l.slot
	}
	if ok, err := file.TryLock(); ok && err == nil {
		return let, nil // uncontended: no goroutine to wait on
	}
	// flock blocks without a way to cancel it, so it waits on its own
	// goroutine; a caller that gives up leaves it to release the lock,
	// and the slot, once it is granted.
	got := make(chan error, 1)
	go func() { got <- file.Lock() }()
	select {
	case err := <-got:
		if err != nil {
			let()
			return nil, lockError(err)
		}
	case <-ctx.Done():
		go func() {
			<-got
			let()
		}()
		return nil, ctx.Err()
	}
	return let, nil
}

// open opens the lock file through the state folder's handle, making the
// folder, or opening it again when the one at StateDir is no longer the
// one held (removed, or replaced by a sync). A state folder that is a
// link (to a folder elsewhere, or to a visible one the journal would then
// be read from), or a lock file that is one, is refused, not followed.
func (l *writeLock) open(v *Engine) (*statedir.Lock, error) {
	fi, err := v.root.Lstat(StateDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if l.state == nil || err != nil || !l.state.Same(fi) {
		if l.state != nil {
			_ = l.state.Close()
			l.state = nil
		}
		d, err := statedir.Open(v.dir, StateDir, true)
		if err != nil {
			return nil, err
		}
		l.state = d
	}
	return l.state.OpenLock(lockName, 0o644)
}

// close releases the state folder's handle, unless a write holds the lock
// now (or a cancelled one still waits for it): the handle then goes with
// the process, rather than Close waiting on another process's write.
func (l *writeLock) close() {
	select {
	case l.slot <- struct{}{}:
	default:
		return
	}
	if l.state != nil {
		_ = l.state.Close()
		l.state = nil
	}
	<-l.slot
}

// state is the state folder's handle; only for a caller holding the
// write lock.
func (v *Engine) state() *statedir.Dir { return v.lock.state }

func lockError(err error) error {
	if k, ok := errors.Resource(err); ok {
		return errors.E(k, "cannot take the vault's write lock (%s): %v", lockFile, unwrapPath(err)).WithCause(err).WithHint(errors.From(err).Hint)
	}
	return errors.E(errors.PermissionDenied, "cannot take the vault's write lock (%s): %v", lockFile, pathErrorText(err)).WithCause(err).
		WithHint(stateHint(err, "The server keeps its lock and journal in the folder "+StateDir+" at the vault's top; the user running it must be able to create and write it. Run with --read-only if the vault must not be written."))
}

// stateHint is the hint for err, a failure in the state folder: what to
// remove when it met a link, else otherwise.
func stateHint(err error, otherwise string) string {
	if errors.Is(err, statedir.ErrLink) {
		return "A link in the server's state folder (" + pathOf(err) + ") is never followed: it came with the vault (a clone, a sync, an archive). Remove the link; the server makes what it needs there itself."
	}
	return otherwise
}

// pathOf is the path an error names, or the state folder.
func pathOf(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	return StateDir
}

// pathErrorText is err's message with the path it names, so that a link
// refused is named.
func pathErrorText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}
