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
//   - The other capabilities both backends have go to the app per Mode; in
//     auto mode the folder takes over when the app is closed or not
//     installed, so the tools keep working with Obsidian shut; and what the
//     CLI cannot carry (note.ErrNeedsFolder) goes to the folder in every
//     mode.
//   - What one backend alone has is not routed: tasks, templates and
//     folders come from the folder, the app's commands from the app
//     (only.go).
//
// Every tool reaches the vault through Router.Vault: one adapter per
// capability, each call held to the folder policy and then routed, in
// one place (vault.go).
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

// PeriodPaths say where the note of a period is, or would be created,
// before it is read or written.
type PeriodPaths interface {
	// DailyPath is where the daily note of date is.
	DailyPath(ctx context.Context, date time.Time) (string, error)
	// PeriodPath is where the note of the period (note.Day, note.Week…)
	// that holds date is.
	PeriodPath(ctx context.Context, date time.Time, period string) (string, error)
}

// AppPaths are what the router asks the app of places: its vault
// folder, and its periodic notes'.
type AppPaths interface {
	PeriodPaths
	// VaultPath is where the app says its vault folder is.
	VaultPath(ctx context.Context) (string, error)
}

// App is the Obsidian app through its CLI (obsidiancli.Backend), as the
// router reaches it: the capabilities it serves, tools.VaultOf the
// backend, and its places.
type App struct {
	tools.Vault
	Paths AppPaths
}

// AppOf is the App of b, an obsidiancli.Backend.
func AppOf(b AppPaths) *App { return &App{Vault: tools.VaultOf(b), Paths: b} }

// side is one backend as a routed call reaches it.
type side struct {
	mode Mode // CLI or Native
	tools.Vault
	paths PeriodPaths
}

func (r *Router) appSide() side { return side{mode: CLI, Vault: r.App.Vault, paths: r.App.Paths} }

func folderSide(v *native.Engine) side { return side{mode: Native, Vault: tools.VaultOf(v), paths: v} }

// Router routes every call of the capabilities both backends have per
// Mode (Vault); what one backend alone has is served by it (only.go).
type Router struct {
	Mode Mode
	// App serves calls through Obsidian; nil in native mode.
	App *App
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
	dir, err := r.App.Paths.VaultPath(ctx)
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
func serve[R any](ctx context.Context, r *Router, op string, fallback bool, call func(side) (R, error)) (R, error) {
	var zero R
	switch {
	case r.Mode == Native:
		v := r.native()
		if v == nil {
			return zero, errors.E(errors.Internal, "the native backend has no vault folder").
				WithHint("Set --vault-path / OBSIDIAN_VAULT_PATH.")
		}
		r.Logger.Debug("call served", "op", op, "backend", Native)
		return call(folderSide(v))
	case r.Mode == CLI:
		return orFolder(ctx, r, op, call)
	case fallback && r.appDown():
		// markDown is only ever set once the folder is known.
		v := r.native()
		r.Logger.Debug("call served", "op", op, "backend", Native)
		return call(folderSide(v))
	}
	res, err := call(r.appSide())
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
	return call(folderSide(v))
}

// orFolder runs a call on the app, and on the folder what the app cannot
// carry.
func orFolder[R any](ctx context.Context, r *Router, op string, call func(side) (R, error)) (R, error) {
	res, err := call(r.appSide())
	if errors.Is(err, note.ErrNeedsFolder) {
		return fromFolder(ctx, r, op, err, call)
	}
	r.Logger.Debug("call served", "op", op, "backend", CLI)
	return res, err
}

// fromFolder serves from the folder a call the app said it cannot carry
// (why), or says that it needs a folder this server does not have.
func fromFolder[R any](ctx context.Context, r *Router, op string, why error, call func(side) (R, error)) (R, error) {
	v, err := r.folder(ctx)
	if v == nil {
		e := *errors.From(why)
		e.Message += ", and " + err.Error()
		var zero R
		return zero, &e
	}
	r.Logger.Debug("call served", "op", op, "backend", Native, "why", "the CLI cannot carry it")
	return call(folderSide(v))
}

// preferFolder runs a call on the folder when there is one (given,
// learned, or asked of the app now), and as serve does otherwise.
func preferFolder[R any](ctx context.Context, r *Router, op string, call func(side) (R, error)) (R, error) {
	if r.Mode != Native && !r.appDown() {
		v, err := r.folder(ctx)
		if v != nil {
			r.Logger.Debug("call served", "op", op, "backend", Native)
			return call(folderSide(v))
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
// and the app is not known to be down (before a write is checked). Unlike learn, it
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
