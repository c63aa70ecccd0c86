package vaultserver

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
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

	mu    sync.Mutex
	dir   string // the folder the record below is of
	rec   *changes.Record
	files *os.Root
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
	if k.dir == dir {
		return k.rec, k.files
	}
	k.close()
	k.dir = dir
	k.rec, k.files = openRecord(k.cfg, dir, k.logger)
	return k.rec, k.files
}

func (k *keeper) close() {
	if k.files != nil {
		_ = k.files.Close()
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
