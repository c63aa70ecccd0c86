// Package native is the native engine: it performs the tools' operations on
// a vault folder directly, with the Obsidian app closed or not installed,
// keeping the contract of the CLI backend — names resolve like wikilinks
// and refuse ambiguity, creates never clobber, writes are atomic, deletes go
// to the trash, and moves keep every link pointing at the moved note.
//
// The vault is a jail: every file is reached through an os.Root opened on
// the vault folder, so '..', absolute paths and symlinks that lead outside
// are refused by the operating system's own path walk, and the hidden
// folders Obsidian keeps for itself (.obsidian, .trash) are not writable.
package native

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// TrashDir is the vault's own trash folder, where Obsidian's "Move to
// Obsidian trash" setting puts deleted files.
const TrashDir = ".trash"

// Engine serves the tools on one vault folder. Its methods are safe for
// concurrent use. Writes are serialised with every other write to the
// vault by this process and by any other obsidian-mcp process (writeLock),
// so two edits of a note by these servers never lose one another.
type Engine struct {
	dir  string
	root *os.Root
	// record is the change record, for the engine's own writes (nil: none).
	record func() *changes.Record
	pol    *policy.Live
	lock   *writeLock
	// swept and recovered are written with the write lock held: whether
	// this process has cleaned up after dead ones (journal, temporary
	// files), and what it did the last time.
	swept     bool
	recovered Recovered
	logger    *slog.Logger
	onBuild   func(vaultindex.Build) (end func()) // for the index; see WithIndexBuildHook
	indexDir  string                              // see WithSavedIndex
	keepIndex bool
	patience  time.Duration // see WithSearchPatience
	// published knows the notes this process wrote last, so that editing
	// one again does not wait as for a save in progress.
	published atomicfile.Published
	// journal signs this process's journal entries and checks those it
	// finds (journalkey.go).
	journal   *signer
	leftAlone map[string]bool // entries recovery left alone; written with the write lock held
	parked    parking         // made by the first write (parking.go)
	replay    replayLog       // what the recovery under way changed (recover.go)
	list      listing
	find      finder
	dv        dataviewState
	dvNow     func() time.Time // see WithDataviewClock
	dvLoc     *time.Location
	dvOff     bool // no Dataview pages made (measurements of the index alone)
}

// Option configures Open.
type Option func(*options)

type options struct {
	policy    *policy.Policy
	logger    *slog.Logger
	onBuild   func(vaultindex.Build) (end func())
	indexDir  string
	keepIndex bool
	patience  time.Duration
	keyFile   string
	record    func() *changes.Record
	dvNow     func() time.Time
	dvLoc     *time.Location
}

// WithChangeRecord gives the engine the vault's change record (record
// answers it, or nil when none is kept), for the writes it makes of its
// own: completing an edit a crash interrupted is recorded as a change of
// its own, which can be undone like any other.
func WithChangeRecord(record func() *changes.Record) Option {
	return func(o *options) { o.record = record }
}

// WithIndexBuildHook runs begin before the search index reads many notes at
// once, and the function it returns after (vaultindex.WithBuildHook): the
// program, not the engine, decides how to tune its collector for that.
func WithIndexBuildHook(begin func(vaultindex.Build) (end func())) Option {
	return func(o *options) { o.onBuild = begin }
}

// WithLogger sets where the vault says what it repaired after a crash
// (see Recover); by default nowhere.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithPolicy hides from the vault the paths p hides, besides those the
// vault's own ignore file (.mcpignore) hides.
func WithPolicy(p *policy.Policy) Option { return func(o *options) { o.policy = p } }

// Open opens the vault at dir, which must be an existing folder. The paths
// the policy hides (the vault's .mcpignore, and WithPolicy's) are not part
// of the vault for it: they are never listed, indexed, resolved or read.
func Open(dir string, opts ...Option) (*Engine, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errors.E(errors.VaultNotFound, "cannot open the vault folder %q: %v", dir, unwrapPath(err)).
			WithHint("Check --vault-path / OBSIDIAN_VAULT_PATH: it must be the folder that holds the vault's notes (the one containing .obsidian/).").
			WithCause(err)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	v := &Engine{dir: dir, root: root, pol: policy.Watch(o.policy, dir), lock: newWriteLock(), logger: o.logger, onBuild: o.onBuild,
		indexDir: o.indexDir, keepIndex: o.keepIndex, patience: o.patience, journal: &signer{file: o.keyFile}, record: o.record,
		dvNow: o.dvNow, dvLoc: o.dvLoc}
	// A save another program makes into a file an update just displaced
	// is merged into the note under the write lock, as any edit is.
	v.published.SetLock(func() (func(), error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return v.lock.acquire(ctx, v)
	}, func(name string, err error) {
		if err != nil {
			v.logger.Warn("a save another program made while this server replaced the note could not be merged", "path", name, "err", err)
			return
		}
		v.logger.Info("a save another program made while this server replaced the note was merged into it", "path", name)
	})
	return v, nil
}

// Policy is the policy in force: the configured one with the vault's
// ignore file as it is now.
func (v *Engine) Policy() *policy.Policy { return v.pol.Current() }

// Dir is the vault folder as given to Open.
func (v *Engine) Dir() string { return v.dir }

// Close releases the vault folder, and its watcher when the index started
// one.
func (v *Engine) Close() error {
	v.published.Flush() // late saves into displaced files are merged first
	v.closeParking()
	v.lock.close()
	if v.find.w != nil {
		v.find.w.close()
	}
	if v.find.ix != nil {
		v.find.ix.Close() // a snapshot being saved is finished, not cut
	}
	return v.root.Close()
}

// locate turns a locator into the path of an existing file.
func (v *Engine) locate(ctx context.Context, loc note.Locator) (string, error) {
	p, _, err := v.locateReal(ctx, loc)
	return p, err
}

// locateReal is locate that also returns the vault path of the file the
// note's path reaches through symlinks (RealPath), worked out once for
// the policy, the hidden-folder check and the caller that writes it.
func (v *Engine) locateReal(ctx context.Context, loc note.Locator) (p, real string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if loc.Path == "" {
		if msg := note.CheckName(loc.Name); msg != "" {
			return "", "", invalid("name", msg)
		}
		p, err := v.resolve(loc.Name)
		if v.lookAgain(ctx, err) {
			p, err = v.resolve(loc.Name)
		}
		if err != nil {
			return "", "", err
		}
		return p, v.RealPath(p), nil
	}
	if msg := note.CheckPath(loc.Path); msg != "" {
		return "", "", invalid("path", msg)
	}
	if note.InDotFolder(loc.Path) {
		return "", "", errors.E(errors.FileNotFound, "note not found: %s (hidden files and folders are not part of the vault)", loc.Path).
			WithHint("Obsidian does not index names starting with '.', such as .obsidian/ and .trash/; the tools do not reach them.")
	}
	// Whether the policy lets the server reach the path named is decided
	// before the call comes here (internal/backend), once, with this
	// engine's policy judging the file it reaches through symlinks.
	real = v.RealPath(loc.Path)
	if real != loc.Path && note.InDotFolder(real) {
		return "", "", errors.E(errors.FileNotFound, "note not found: %s (it is a symlink to %s, inside a hidden folder that is not part of the vault)", loc.Path, real).
			WithHint("Obsidian does not index names starting with '.', such as .obsidian/ and .trash/; the tools do not reach them, through symlinks either.")
	}
	fi, err := v.root.Stat(loc.Path)
	if v.lookAgain(ctx, err) {
		fi, err = v.root.Stat(loc.Path)
	}
	if err != nil {
		return "", "", FileError(err, loc.Path)
	}
	if fi.IsDir() {
		return "", "", errors.E(errors.FileNotFound, "%s is a folder, not a note", loc.Path).
			WithHint("To create, move, rename or delete the folder itself, use obsidian_folder; for a note in it, pass the note's path with its extension.")
	}
	return loc.Path, real, nil
}

// resolve finds the note a wikilink-style name designates.
func (v *Engine) resolve(name string) (string, error) {
	cands, err := v.candidates(name)
	if err != nil {
		return "", err
	}
	return note.Resolve(name, cands)
}

func invalid(field, msg string) *errors.Error {
	return errors.InvalidFields(errors.Field{Field: field, Message: msg})
}

// testHookLookAgain, when set by a test, runs as lookAgain starts waiting.
var testHookLookAgain func()

// lookAgain reports whether a note found missing (err: no such file, or
// no note of that name) should be looked for once more: where a replace
// leaves a note without its name for a moment (atomicfile.NameGaps:
// Windows), the write lock is waited for, since every replace of this
// server's processes runs under it, and the note is there again once it
// is let go. A name is resolved from a listing of the folders, which
// misses the note just the same as a look at its path. Never called with
// the lock held.
func (v *Engine) lookAgain(ctx context.Context, err error) bool {
	if !atomicfile.NameGaps || !missing(err) {
		return false
	}
	if testHookLookAgain != nil {
		testHookLookAgain()
	}
	release, lerr := v.lock.acquire(ctx, v)
	if lerr != nil {
		return false
	}
	release()
	return true
}

// missing reports whether err says a note is not there.
func missing(err error) bool {
	var e *errors.Error
	if errors.As(err, &e) {
		return e.Kind == errors.FileNotFound
	}
	return errors.Is(err, fs.ErrNotExist)
}

// FileError maps a file-system error on vault path p to the tools' kinds.
func FileError(err error, p string) error {
	var e *errors.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, fs.ErrNotExist):
		return errors.E(errors.FileNotFound, "note not found: %s", p).WithCause(err).
			WithHint("Check the path (exact, vault-relative, with extension) or use `name` to resolve it like a wikilink.")
	case errors.Is(err, fs.ErrExist):
		return note.Exists(p)
	case errors.Is(err, atomicfile.ErrBusy):
		return busy(err, p)
	case errors.Is(err, atomicfile.ErrNotRegular):
		return errors.E(errors.InvalidParams, "%s is not a regular file (a FIFO, device or socket); it is never read or written as a note or attachment", p).With("path", p).WithCause(err).
			WithHint("Name a note or attachment file; such special files are left alone.")
	case errors.Is(err, fs.ErrPermission):
		return errors.E(errors.PermissionDenied, "permission denied: %s", p).WithCause(err)
	case escapes(err):
		return errors.E(errors.PermissionDenied, "refused: %s leads outside the vault (through a symlink)", p).WithCause(err).
			WithHint("The tools only reach files inside the vault folder; symlinks that point elsewhere are not followed.")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	if k, ok := errors.Resource(err); ok {
		return errors.E(k, "cannot access %s: %v", p, unwrapPath(err)).With("path", p).WithCause(err).WithHint(errors.From(err).Hint)
	}
	return errors.E(errors.Internal, "cannot access %s in the vault folder: %v", p, unwrapPath(err)).WithCause(err)
}

// busy is the REVISION_CONFLICT of a note another program kept writing,
// naming the conflict copy that keeps a save of theirs the edit could not
// merge (atomicfile.ConflictCopy), if one was made.
func busy(err error, p string) *errors.Error {
	e := note.Busy(p).WithCause(err)
	var cc *atomicfile.ConflictCopy
	if errors.As(err, &cc) {
		e.Message += "; a save of the other program that could not be merged with it is kept in " + cc.Path
		e.With("conflict_copy", cc.Path)
	}
	return e
}

// escapes reports whether err is os.Root refusing a path that leaves it.
// The os package does not export that error, only its text.
func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// linkFormat reads Obsidian's "New link format" from .obsidian/app.json.
func (v *Engine) linkFormat() links.Format {
	data, err := v.readSmall(".obsidian/app.json", maxConfig)
	if err != nil {
		return links.Shortest
	}
	var cfg struct {
		NewLinkFormat links.Format `json:"newLinkFormat"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return links.Shortest
	}
	switch cfg.NewLinkFormat {
	case links.Relative, links.Absolute:
		return cfg.NewLinkFormat
	}
	return links.Shortest
}

// templatesFolder reads the core Templates plugin's folder setting.
func (v *Engine) templatesFolder() string {
	data, err := v.readSmall(".obsidian/templates.json", maxConfig)
	if err != nil {
		return ""
	}
	var cfg struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return ""
	}
	return strings.Trim(path.Clean("/"+cfg.Folder), "/")
}
