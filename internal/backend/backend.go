// Package backend chooses, call by call, which backend serves a tool: the
// Obsidian app through its CLI, or the native engine on the vault folder.
// In auto mode the app is preferred while it answers, and the folder takes
// over when the app is closed or not installed, so the tools keep working
// with Obsidian shut.
package backend

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
	"github.com/obsidian-mcp/obsidian-mcp/vault"
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
	// KnownFolder is the vault folder when known without asking the app,
	// nil otherwise.
	KnownFolder() *vault.Vault
	// LearnFolder asks the app where the vault folder is, and returns it
	// when this machine can open it, else nil.
	LearnFolder(ctx context.Context) *vault.Vault
}

// Router implements tools.Backend by routing every call per Mode.
type Router struct {
	Mode Mode
	// App serves calls through Obsidian; nil in native mode.
	App App
	// Folder is the vault folder given by the user; nil to rely on what
	// the app reports. Its owner closes it.
	Folder *vault.Vault
	// Recheck is how long, after the app failed to answer, calls go
	// straight to the folder before the app is tried again. It spares a
	// CLI round trip (up to a second on Windows) per call while the app
	// is closed; 0 tries the app on every call.
	Recheck time.Duration
	Logger  *slog.Logger
	// Rules is the configured folder policy; the vault folder's ignore
	// file adds to it (Policy).
	Rules *policy.Policy

	mu        sync.Mutex
	downUntil time.Time
	learning  bool
}

// KnownFolder is the vault folder when known: given, or learned from the
// app; nil otherwise.
func (r *Router) KnownFolder() *vault.Vault { return r.native() }

// native is the vault folder when known: given, or learned from the app.
func (r *Router) native() *vault.Vault {
	if r.Folder != nil {
		return r.Folder
	}
	if r.App != nil {
		return r.App.KnownFolder()
	}
	return nil
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
		r.Logger.Debug("call served", "op", op, "backend", CLI)
		return call(r.App)
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

// Learn asks the app where the vault folder is, if that is not known yet
// and the app is not known to be down (a Guard's Prepare). Unlike learn, it
// waits for the answer even when another call is asking too.
func (r *Router) Learn(ctx context.Context) {
	if r.Mode != Native && r.App != nil && r.native() == nil && !r.appDown() {
		r.App.LearnFolder(ctx)
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
	if v := r.App.LearnFolder(ctx); v != nil {
		r.Logger.Debug("vault folder learned from the app", "dir", v.Dir())
	}
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

// Create implements tools.Backend.
func (r *Router) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	return serve(ctx, r, "create", true, func(b tools.Everything) (note.Created, error) { return b.Create(ctx, req) })
}

// Read implements tools.Backend.
func (r *Router) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	return serve(ctx, r, "read", true, func(b tools.Everything) (note.Content, error) { return b.Read(ctx, loc) })
}

// Append implements tools.Backend.
func (r *Router) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return serve(ctx, r, "append", true, func(b tools.Everything) (note.Written, error) { return b.Append(ctx, loc, content, inline) })
}

// Prepend implements tools.Backend.
func (r *Router) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return serve(ctx, r, "prepend", true, func(b tools.Everything) (note.Written, error) { return b.Prepend(ctx, loc, content, inline) })
}

// Delete implements tools.Backend.
func (r *Router) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	return serve(ctx, r, "delete", true, func(b tools.Everything) (note.Deleted, error) { return b.Delete(ctx, loc, permanent) })
}

// Move implements tools.Backend.
func (r *Router) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	return serve(ctx, r, "move", true, func(b tools.Everything) (note.Moved, error) { return b.Move(ctx, loc, to) })
}

// Rename implements tools.Backend.
func (r *Router) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	return serve(ctx, r, "rename", true, func(b tools.Everything) (note.Moved, error) { return b.Rename(ctx, loc, newName) })
}

// Open implements tools.Backend. Only the app can show a note, so it never
// falls back.
func (r *Router) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	return serve(ctx, r, "open", false, func(b tools.Everything) (note.Opened, error) { return b.Open(ctx, loc, newTab) })
}

// FileInfo implements tools.Backend.
func (r *Router) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	return serve(ctx, r, "file_info", true, func(b tools.Everything) (note.Info, error) { return b.FileInfo(ctx, loc) })
}

// Search implements tools.Searcher.
func (r *Router) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	return serve(ctx, r, "search", true, func(b tools.Everything) (note.SearchResult, error) { return b.Search(ctx, req) })
}

// List implements tools.Lister.
func (r *Router) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	return serve(ctx, r, "list", true, func(b tools.Everything) (note.Listing, error) { return b.List(ctx, req) })
}

// Links implements tools.LinkGraph.
func (r *Router) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	return serve(ctx, r, "links", true, func(b tools.Everything) (note.Links, error) { return b.Links(ctx, loc) })
}

// Backlinks implements tools.LinkGraph.
func (r *Router) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	return serve(ctx, r, "backlinks", true, func(b tools.Everything) (note.Backlinks, error) { return b.Backlinks(ctx, loc) })
}

// Unresolved implements tools.LinkGraph.
func (r *Router) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return serve(ctx, r, "unresolved", true, func(b tools.Everything) ([]note.Unresolved, error) { return b.Unresolved(ctx) })
}

// Orphans implements tools.LinkGraph.
func (r *Router) Orphans(ctx context.Context) ([]string, error) {
	return serve(ctx, r, "orphans", true, func(b tools.Everything) ([]string, error) { return b.Orphans(ctx) })
}

// Tags implements tools.Metadata.
func (r *Router) Tags(ctx context.Context) ([]note.TagCount, error) {
	return serve(ctx, r, "tags", true, func(b tools.Everything) ([]note.TagCount, error) { return b.Tags(ctx) })
}

// Tagged implements tools.Metadata.
func (r *Router) Tagged(ctx context.Context, tag string) ([]string, error) {
	return serve(ctx, r, "tagged", true, func(b tools.Everything) ([]string, error) { return b.Tagged(ctx, tag) })
}

// Properties implements tools.Metadata.
func (r *Router) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return serve(ctx, r, "properties", true, func(b tools.Everything) ([]note.PropertyStat, error) { return b.Properties(ctx) })
}

// Edit implements tools.Editor.
func (r *Router) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	return serve(ctx, r, "edit", true, func(b tools.Everything) (note.Edited, error) { return b.Edit(ctx, loc, ifMatch, change) })
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

// RenameTag implements tools.TagRenamer on the vault folder, when it is
// known: the app's edits of notes go through the folder too.
func (r *Router) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	if v := r.native(); v != nil {
		return v.RenameTag(ctx, from, to, paths)
	}
	return note.TagRename{}, tools.ErrNoBulk
}
