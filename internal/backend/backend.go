// Package backend chooses, call by call, which backend serves a tool: the
// Obsidian app through its CLI, or the native engine on the vault folder.
// It is the one place that decides: the CLI backend only drives the CLI.
//
//   - The folder is the one the user gave, or the one the app reports
//     (vault info=path) when this machine can open it.
//   - Reads, edits and the read side (search, links, tags, properties) go
//     to the folder when there is one: its bytes are exact, its edits are
//     compare-and-swap, and its index answers faster than any CLI round
//     trip.
//   - Everything else goes to the app per Mode; in auto mode the folder
//     takes over when the app is closed or not installed, so the tools
//     keep working with Obsidian shut; and what the CLI cannot carry
//     (note.ErrNeedsFolder) goes to the folder in every mode.
package backend

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// Mode says which backends may serve calls.
type Mode string

// The modes of --backend.
const (
	Auto   Mode = "auto"
	CLI    Mode = "cli"
	Native Mode = "native"
)

// App is the CLI backend as the router needs it.
type App interface {
	tools.Everything
	// VaultPath is where the app says its vault folder is.
	VaultPath(ctx context.Context) (string, error)
	// DailyPath is where a daily note is, or would be created.
	DailyPath(ctx context.Context, date time.Time) (string, error)
	// PeriodPath is where the note of a period is, or would be created.
	PeriodPath(ctx context.Context, date time.Time, period string) (string, error)
}

// Router implements tools.Notes by routing every call per Mode.
type Router struct {
	Mode Mode
	// App serves calls through Obsidian; nil in native mode.
	App App
	// Folder is the vault folder given by the user; nil to rely on what
	// the app reports. Its owner closes it.
	Folder *native.Engine
	// Recheck is how long, after the app failed to answer, calls go
	// straight to the folder before the app is tried again. It spares a
	// CLI round trip (up to a second on Windows) per call while the app
	// is closed; 0 tries the app on every call.
	Recheck time.Duration
	Logger  *slog.Logger
	// Rules is the configured folder policy; the vault folder's ignore
	// file adds to it (Policy).
	Rules *policy.Policy
	// FolderOptions are the program's other options for a folder learned
	// from the app (native.WithIndexBuildHook, say).
	FolderOptions []native.Option

	mu        sync.Mutex
	downUntil time.Time
	learning  bool
	// learned is the folder the app reported, once opened; learnErr says
	// this machine cannot open it (remembered: the app runs elsewhere).
	learned  *native.Engine
	learnErr error
}

// errNoLocalVault marks a vault folder this machine cannot open.
var errNoLocalVault = errors.New("the vault folder is not reachable from this machine")

// KnownFolder is the vault folder when known: given, or learned from the
// app; nil otherwise.
func (r *Router) KnownFolder() *native.Engine { return r.native() }

// native is the vault folder when known: given, or learned from the app.
func (r *Router) native() *native.Engine {
	if r.Folder != nil {
		return r.Folder
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.learned
}

// Close closes the folder learned from the app (the given one is its
// owner's).
func (r *Router) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.learned != nil {
		return r.learned.Close()
	}
	return nil
}

// folder is the vault folder: given, learned, or asked of the app now
// (once: a folder this machine cannot open is remembered, an app that does
// not answer is asked again later). The lock is not held while the app
// answers, so that native never waits on an app that hangs; calls that
// ask at once keep the first answer.
func (r *Router) folder(ctx context.Context) (*native.Engine, error) {
	if v := r.native(); v != nil {
		return v, nil
	}
	if r.Mode == Native || r.App == nil {
		return nil, errors.New("no vault folder is known")
	}
	r.mu.Lock()
	err := r.learnErr
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	dir, err := r.App.VaultPath(ctx)
	if err != nil {
		return nil, err
	}
	v, err := native.Open(dir, append([]native.Option{native.WithPolicy(r.Rules), native.WithLogger(r.Logger)}, r.FolderOptions...)...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.learned != nil || r.learnErr != nil {
		if v != nil {
			_ = v.Close()
		}
		if r.learned != nil {
			return r.learned, nil
		}
		return nil, r.learnErr
	}
	if err != nil {
		r.learnErr = fmt.Errorf("%w (%q: %v)", errNoLocalVault, dir, err)
		r.Logger.Info("vault folder not reachable; calls go through the CLI", "dir", dir, "err", err)
		return nil, r.learnErr
	}
	r.learned = v
	r.Logger.Debug("vault folder learned from the app", "dir", dir)
	return v, nil
}

// Policy is the folder policy in force: the vault folder's (the
// configured rules with its ignore file, judging each path also as the
// file it reaches through symlinks) when the folder is known, else the
// configured rules. It asks the app nothing; see Learn.
func (r *Router) Policy(context.Context) *policy.Policy {
	if v := r.native(); v != nil {
		return v.Policy().Resolving(v.RealPath)
	}
	return r.Rules
}

func (r *Router) appDown() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Now().Before(r.downUntil)
}

func (r *Router) markDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if down {
		r.downUntil = time.Now().Add(r.Recheck)
	} else {
		r.downUntil = time.Time{}
	}
}

// unreachable reports whether err means the app could not be asked at all,
// so the command did not run and the folder may safely serve it instead.
func unreachable(err error) bool {
	e := errors.From(err)
	return err != nil && (e.Kind == errors.NotRunning || e.Kind == errors.CLINotFound)
}

// serve runs one call. op names it in logs; fallback is false for calls
// only the app can do (open).
func serve[R any](ctx context.Context, r *Router, op string, fallback bool, call func(tools.Everything) (R, error)) (R, error) {
	var zero R
	switch {
	case r.Mode == Native:
		v := r.native()
		if v == nil {
			return zero, errors.E(errors.Internal, "the native backend has no vault folder").
				WithHint("Set --vault-path / OBSIDIAN_VAULT_PATH.")
		}
		r.Logger.Debug("call served", "op", op, "backend", Native)
		return call(v)
	case r.Mode == CLI:
		return orFolder(ctx, r, op, call)
	case fallback && r.appDown():
		// markDown is only ever set once the folder is known.
		v := r.native()
		r.Logger.Debug("call served", "op", op, "backend", Native)
		return call(v)
	}
	res, err := call(r.App)
	if !unreachable(err) {
		r.markDown(false)
		r.learn(ctx)
		if errors.Is(err, note.ErrNeedsFolder) {
			return fromFolder(ctx, r, op, err, call)
		}
		r.Logger.Debug("call served", "op", op, "backend", CLI)
		return res, err
	}
	if !fallback {
		return zero, withWayOut(err)
	}
	v := r.native()
	if v == nil {
		return zero, withWayOut(err)
	}
	r.markDown(true)
	r.Logger.Info("Obsidian is not answering; serving calls from the vault folder", "dir", v.Dir(), "reason", errors.From(err).Kind)
	r.Logger.Debug("call served", "op", op, "backend", Native)
	return call(v)
}

// orFolder runs a call on the app, and on the folder what the app cannot
// carry.
func orFolder[R any](ctx context.Context, r *Router, op string, call func(tools.Everything) (R, error)) (R, error) {
	res, err := call(r.App)
	if errors.Is(err, note.ErrNeedsFolder) {
		return fromFolder(ctx, r, op, err, call)
	}
	r.Logger.Debug("call served", "op", op, "backend", CLI)
	return res, err
}

// fromFolder serves from the folder a call the app said it cannot carry
// (why), or says that it needs a folder this server does not have.
func fromFolder[R any](ctx context.Context, r *Router, op string, why error, call func(tools.Everything) (R, error)) (R, error) {
	v, err := r.folder(ctx)
	if v == nil {
		e := *errors.From(why)
		e.Message += ", and " + err.Error()
		var zero R
		return zero, &e
	}
	r.Logger.Debug("call served", "op", op, "backend", Native, "why", "the CLI cannot carry it")
	return call(v)
}

// preferFolder runs a call on the folder when there is one (given,
// learned, or asked of the app now), and as serve does otherwise.
func preferFolder[R any](ctx context.Context, r *Router, op string, call func(tools.Everything) (R, error)) (R, error) {
	if r.Mode != Native && !r.appDown() {
		v, err := r.folder(ctx)
		if v != nil {
			r.Logger.Debug("call served", "op", op, "backend", Native)
			return call(v)
		}
		if unreachable(err) {
			// The app was just asked where its folder is and could not
			// be reached: asking it again for the call itself would fail
			// the same way, and there is no folder to fall back on.
			var zero R
			if r.Mode == CLI {
				return zero, err
			}
			return zero, withWayOut(err)
		}
	}
	return serve(ctx, r, op, true, call)
}

// Learn asks the app where the vault folder is, if that is not known yet
// and the app is not known to be down (a Guard's Prepare). Unlike learn, it
// waits for the answer even when another call is asking too.
func (r *Router) Learn(ctx context.Context) {
	if r.Mode != Native && r.App != nil && r.native() == nil && !r.appDown() {
		_, _ = r.folder(ctx)
	}
}

// learn asks the app for the vault folder until it is known, so that it
// is known before the app goes away, and so that its ignore file applies
// (Policy). One call asks at a time; the others carry on without waiting.
// A folder this machine cannot open is remembered by the app backend, and
// not asked again.
func (r *Router) learn(ctx context.Context) {
	if r.Mode == Native || r.App == nil || r.native() != nil {
		return
	}
	r.mu.Lock()
	if r.learning {
		r.mu.Unlock()
		return
	}
	r.learning = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.learning = false
		r.mu.Unlock()
	}()
	_, _ = r.folder(ctx)
}

// withWayOut adds to an app-unreachable error the other way out: the
// vault folder.
func withWayOut(err error) error {
	if !unreachable(err) {
		return err
	}
	e := *errors.From(err)
	e.Hint += " Or set --vault-path / OBSIDIAN_VAULT_PATH to the vault's folder, and the server works on the notes without the app."
	return &e
}

// Create implements tools.Notes.
func (r *Router) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	return serve(ctx, r, "create", true, func(b tools.Everything) (note.Created, error) {
		res, err := b.Create(ctx, req)
		if _, folder := b.(*native.Engine); folder && err == nil && req.Open && r.App != nil && !r.appDown() {
			// Written to the folder (the CLI could not carry it); the app
			// still shows it. The note is written, so failing now would
			// invite a retry that finds it existing: report it not opened.
			if _, oerr := r.App.Open(ctx, note.ByPath(res.Path), false); oerr != nil {
				r.Logger.Warn("note created but not opened", "path", res.Path, "err", oerr)
			} else {
				res.Opened = true
			}
		}
		return res, err
	})
}

// Read implements tools.Notes.
func (r *Router) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	return preferFolder(ctx, r, "read", func(b tools.Everything) (note.Content, error) { return b.Read(ctx, loc) })
}

// Append implements tools.Notes.
func (r *Router) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return serve(ctx, r, "append", true, func(b tools.Everything) (note.Written, error) { return b.Append(ctx, loc, content, inline) })
}

// Prepend implements tools.Notes.
func (r *Router) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return serve(ctx, r, "prepend", true, func(b tools.Everything) (note.Written, error) { return b.Prepend(ctx, loc, content, inline) })
}

// Delete implements tools.Notes.
func (r *Router) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	return serve(ctx, r, "delete", true, func(b tools.Everything) (note.Deleted, error) { return b.Delete(ctx, loc, permanent) })
}

// Move implements tools.Notes.
func (r *Router) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	return serve(ctx, r, "move", true, func(b tools.Everything) (note.Moved, error) { return b.Move(ctx, loc, to) })
}

// Rename implements tools.Notes.
func (r *Router) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	return serve(ctx, r, "rename", true, func(b tools.Everything) (note.Moved, error) { return b.Rename(ctx, loc, newName) })
}

// Open implements tools.Notes. Only the app can show a note, so it never
// falls back.
func (r *Router) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	return serve(ctx, r, "open", false, func(b tools.Everything) (note.Opened, error) { return b.Open(ctx, loc, newTab) })
}

// FileInfo implements tools.Notes.
func (r *Router) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	return serve(ctx, r, "file_info", true, func(b tools.Everything) (note.Info, error) { return b.FileInfo(ctx, loc) })
}

// Search implements tools.Searcher.
func (r *Router) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	return preferFolder(ctx, r, "search", func(b tools.Everything) (note.SearchResult, error) { return b.Search(ctx, req) })
}

// List implements tools.Lister.
func (r *Router) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	return preferFolder(ctx, r, "list", func(b tools.Everything) (note.Listing, error) { return b.List(ctx, req) })
}

// Links implements tools.LinkGraph.
func (r *Router) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	return preferFolder(ctx, r, "links", func(b tools.Everything) (note.Links, error) { return b.Links(ctx, loc) })
}

// Backlinks implements tools.LinkGraph.
func (r *Router) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	return preferFolder(ctx, r, "backlinks", func(b tools.Everything) (note.Backlinks, error) { return b.Backlinks(ctx, loc) })
}

// Unresolved implements tools.LinkGraph.
func (r *Router) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return preferFolder(ctx, r, "unresolved", func(b tools.Everything) ([]note.Unresolved, error) { return b.Unresolved(ctx) })
}

// Orphans implements tools.LinkGraph.
func (r *Router) Orphans(ctx context.Context) ([]string, error) {
	return preferFolder(ctx, r, "orphans", func(b tools.Everything) ([]string, error) { return b.Orphans(ctx) })
}

// Tags implements tools.Metadata.
func (r *Router) Tags(ctx context.Context) ([]note.TagCount, error) {
	return preferFolder(ctx, r, "tags", func(b tools.Everything) ([]note.TagCount, error) { return b.Tags(ctx) })
}

// Tagged implements tools.Metadata.
func (r *Router) Tagged(ctx context.Context, tag string) ([]string, error) {
	return preferFolder(ctx, r, "tagged", func(b tools.Everything) ([]string, error) { return b.Tagged(ctx, tag) })
}

// Properties implements tools.Metadata.
func (r *Router) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return preferFolder(ctx, r, "properties", func(b tools.Everything) ([]note.PropertyStat, error) { return b.Properties(ctx) })
}

// Edit implements tools.Editor.
func (r *Router) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	return preferFolder(ctx, r, "edit", func(b tools.Everything) (note.Edited, error) { return b.Edit(ctx, loc, ifMatch, change) })
}

// Daily implements tools.DailyNotes.
func (r *Router) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	return serve(ctx, r, "daily", true, func(b tools.Everything) (note.Daily, error) { return b.Daily(ctx, req) })
}

// DailyPath is where the daily note of date is, or would be created.
func (r *Router) DailyPath(ctx context.Context, date time.Time) (string, error) {
	return serve(ctx, r, "daily path", true, func(b tools.Everything) (string, error) {
		d, ok := b.(dailyPather)
		if !ok {
			return "", errors.E(errors.Internal, "this backend cannot say where the daily note is")
		}
		return d.DailyPath(ctx, date)
	})
}

// PeriodPath is where the note of the period that holds date is, or would
// be created.
func (r *Router) PeriodPath(ctx context.Context, date time.Time, period string) (string, error) {
	return serve(ctx, r, "period path", true, func(b tools.Everything) (string, error) {
		d, ok := b.(dailyPather)
		if !ok {
			return "", errors.E(errors.Internal, "this backend cannot say where the periodic note is")
		}
		return d.PeriodPath(ctx, date, period)
	})
}

// RenameTag implements tools.TagRenamer on the vault folder, when it is
// known: the app's edits of notes go through the folder too.
func (r *Router) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	if v := r.native(); v != nil {
		return v.RenameTag(ctx, from, to, paths)
	}
	return note.TagRename{}, tools.ErrNoBulk
}
