package vaultserver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// keeper opens the vault's change record once the vault folder is known:
// given (--vault-path), or learned from the app at the first call that
// needs it. Before that the tools write through the app alone, which is
// not recorded yet.
type keeper struct {
	cfg    Config
	logger *slog.Logger
	// folder is the vault folder when known, "" before.
	folder func() string

	mu     sync.Mutex
	closed bool   // the server is closed: no record is opened again
	dir    string // the folder the record below is of
	rec    *changes.Record
	files  *os.Root
}

// get is the record, or nil when there is none (yet): --changes-dir off,
// no folder known, or a record that cannot be opened (logged once).
func (k *keeper) get() (*changes.Record, *os.Root) {
	if k == nil || k.cfg.ChangesDir == "off" {
		return nil, nil
	}
	dir := k.folder()
	if dir == "" {
		return nil, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dir == dir || k.closed {
		return k.rec, k.files
	}
	k.close()
	k.dir = dir
	k.rec, k.files = openRecord(k.cfg, dir, k.logger)
	return k.rec, k.files
}

// record is the record, for the engine's own writes (nil when none).
func (k *keeper) record() *changes.Record {
	rec, _ := k.get()
	return rec
}

func (k *keeper) close() {
	if k.files != nil {
		_ = k.files.Close()
	}
	if k.rec != nil {
		k.rec.Close()
	}
	k.rec, k.files = nil, nil
}

// openRecord opens the change record of the vault at dir as cfg says. A
// record that cannot be opened is logged, and the server runs without
// one: the tools still work, and obsidian_history says why.
func openRecord(cfg Config, dir string, logger *slog.Logger) (*changes.Record, *os.Root) {
	base := cfg.ChangesDir
	if base == "" {
		var err error
		if base, err = changes.DefaultBase(); err != nil {
			logger.Warn("no state folder for the change record; changes are not recorded", "err", err)
			return nil, nil
		}
	}
	vault, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil
	}
	limits := cfg.ChangesLimits
	if limits == (changes.Limits{}) {
		limits = changes.DefaultLimits
	}
	rec, err := changes.Open(base, dir, vault, limits)
	if err != nil {
		_ = vault.Close()
		logger.Warn("the change record cannot be used; changes are not recorded", "err", err)
		return nil, nil
	}
	return rec, vault
}

// recorded returns all with every tool that writes making a change of
// the record (changes.With) for the engine's writes to add their parts
// to: the tool's name and the client's.
func recorded(all []server.ServerTool, k *keeper) []server.ServerTool {
	if k == nil {
		return all
	}
	out := slices.Clone(all)
	for i, st := range out {
		if !tools.Writes(st.Tool.Name) {
			continue
		}
		name, next := st.Tool.Name, st.Handler
		out[i].Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec, _ := k.get()
			if rec == nil {
				return next(ctx, req)
			}
			p := rec.Begin(name, clientName(ctx))
			defer p.End()
			return next(changes.With(ctx, p), req)
		}
	}
	return out
}

// clientName is the calling client's name, as it gave it at initialize,
// and the credentials it came with when an HTTP face checked some (an
// OAuth client, the API key).
func clientName(ctx context.Context) string {
	var name string
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		name = s.GetClientInfo().Name
	}
	switch who := auth.Who(ctx); {
	case who == "":
		return name
	case name == "":
		return who
	default:
		return name + " (" + who + ")"
	}
}

// historyView is the record as obsidian_history reads it: held to the
// folder policy (a hidden note's parts are not shown), with the vault's
// files for the bytes after a change that the record does not keep.
type historyView struct {
	keeper *keeper
	policy func(context.Context) *policy.Policy
}

// record is the record, or why there is none yet.
func (h historyView) record() (*changes.Record, *os.Root, error) {
	rec, files := h.keeper.get()
	if rec == nil {
		return nil, nil, errors.E(errors.Unsupported, "this server keeps no change record yet: the vault folder is not known (the app has not said where it is), or the record could not be opened (the server's log says why)").
			WithHint("Ask the user to give the server the vault folder (--vault-path), or to check its log.")
	}
	return rec, files, nil
}

func (h historyView) hidden(ctx context.Context) func(string) bool {
	pol := h.policy(ctx)
	if !pol.Hides() {
		return nil
	}
	return pol.Hidden
}

func (h historyView) Changes(ctx context.Context, q note.ChangeQuery) (note.ChangeList, error) {
	rec, _, err := h.record()
	if err != nil {
		return note.ChangeList{}, err
	}
	l, err := rec.List(changes.Filter{Path: q.Path, Folder: q.Folder, Tool: q.Tool, Client: q.Client,
		Since: q.Since, Until: q.Until, Limit: q.Limit, Before: q.Cursor, Hidden: h.hidden(ctx)})
	if err != nil {
		return note.ChangeList{}, err
	}
	return note.ChangeList{Changes: l.Changes, Next: l.More, Unreadable: l.Damaged}, nil
}

func (h historyView) Change(ctx context.Context, id string) (note.ChangeDetail, error) {
	rec, files, err := h.record()
	if err != nil {
		return note.ChangeDetail{}, err
	}
	c, err := rec.Get(id, h.hidden(ctx))
	if errors.Is(err, changes.ErrNoChange) {
		return note.ChangeDetail{}, errors.InvalidFields(errors.Field{Field: "id", Message: err.Error() + "; obsidian_history without id lists the changes kept"})
	}
	if err != nil {
		return note.ChangeDetail{}, err
	}
	return rec.Detail(c, func(p string) ([]byte, bool) {
		data, err := files.ReadFile(p)
		return data, err == nil
	}), nil
}

// undoer is obsidian_undo: the record's plan of an undo, held to the
// folder policy, taken by the engine on the vault folder as writes of
// the undo's own change.
type undoer struct {
	historyView
	engine func() *native.Engine
}

func (u undoer) Undo(ctx context.Context, req note.UndoRequest) (note.Undone, error) {
	rec, files, err := u.record()
	if err != nil {
		return note.Undone{}, err
	}
	engine := u.engine()
	if engine == nil {
		return note.Undone{}, errors.E(errors.Unsupported, "the vault folder is not open, so nothing can be undone")
	}
	cs, err := rec.ToUndo(req.ID, req.Client, req.Last, u.hidden(ctx))
	switch {
	case errors.Is(err, changes.ErrNoChange):
		return note.Undone{}, errors.InvalidFields(errors.Field{Field: "id", Message: err.Error() + "; obsidian_history lists the changes kept"})
	case errors.Is(err, changes.ErrUndone):
		return note.Undone{}, errors.InvalidFields(errors.Field{Field: "id", Message: err.Error()})
	case errors.Is(err, changes.ErrHiddenParts):
		return note.Undone{}, errors.E(errors.PermissionDenied, "%v", err).WithHint("Ask the user to undo it with `obsidian-mcp history undo` in a terminal.")
	case err != nil:
		return note.Undone{}, err
	case len(cs) == 0:
		return note.Undone{}, errors.InvalidFields(errors.Field{Field: "client", Message: fmt.Sprintf("%q has no change to undo (its changes are undone already, or it made none); obsidian_history with client lists them", req.Client)})
	}
	// An undo writes what the changes wrote: the policy must let the
	// server write every file of them now.
	pol := u.policy(ctx)
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
		for _, p := range c.Paths() {
			if err := pol.CheckWrite(strings.TrimSuffix(p, "/")); err != nil {
				return note.Undone{}, err
			}
		}
	}
	steps, conflicts, err := rec.Plan(cs, changes.RootFiles(files))
	if err != nil {
		return note.Undone{}, err
	}
	if len(conflicts) > 0 {
		var paths []string
		for _, c := range conflicts {
			if !slices.Contains(paths, c.Path) {
				paths = append(paths, c.Path)
			}
		}
		return note.Undone{}, errors.E(errors.RevisionConflict, "nothing was undone: %s changed since in a way the undo would overwrite (%s)", strings.Join(paths, ", "), conflicts[0].Reason).
			With("conflicts", conflicts).
			WithHint("Read the notes named and edit them by hand (data.conflicts shows what changed since), or undo the later changes first.")
	}
	out := note.Undone{Undone: ids, Steps: []note.UndoStep{}}
	if req.DryRun {
		out.DryRun = true
		for _, s := range steps {
			op := s.Op
			if op == changes.StepCreate {
				op = changes.StepWrite // the note's bytes restored
			}
			out.Steps = append(out.Steps, note.UndoStep{Op: op, Path: s.Path, From: s.From, Merged: s.Merged})
		}
		return out, nil
	}
	p := changes.In(ctx)
	p.Undoes(ids)
	out.Change = p.ID()
	out.Steps, err = engine.Undo(ctx, steps)
	if len(out.Steps) == 0 {
		out.Change = "" // nothing written: no change kept
	}
	return out, err
}

// UndoInTerminal is `obsidian-mcp history undo`: a person at the terminal
// undoes a change of the vault at vault, its record under base. The
// folder policy holds the assistants, not the vault's owner, so it does
// not hold here; the undo is recorded as a change of the client
// "obsidian-mcp history". The record is kept with no bound of its own (a
// server's limits prune it).
func UndoInTerminal(ctx context.Context, base, vault string, req note.UndoRequest, logger *slog.Logger) (note.Undone, error) {
	engine, err := native.Open(vault, native.WithLogger(logger))
	if err != nil {
		return note.Undone{}, err
	}
	defer engine.Close()
	k := &keeper{cfg: Config{ChangesDir: base, ChangesLimits: changes.Limits{MaxAge: 100 * 365 * 24 * time.Hour}}, logger: logger,
		folder: func() string { return vault }}
	defer k.close()
	rec, _ := k.get()
	if rec == nil {
		return note.Undone{}, errors.E(errors.Unsupported, "the change record of %s cannot be opened (see above)", vault)
	}
	u := undoer{historyView: historyView{keeper: k, policy: func(context.Context) *policy.Policy { return nil }},
		engine: func() *native.Engine { return engine }}
	p := rec.Begin("obsidian_undo", "obsidian-mcp history")
	defer p.End()
	return u.Undo(changes.With(ctx, p), req)
}
