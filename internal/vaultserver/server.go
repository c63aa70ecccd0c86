// Package vaultserver is the MCP server of one vault, as every face serves
// it (stdio, serve's HTTP, the gateway's vault namespaces): its settings
// from flags and environment, the backends it opens behind the router
// (which holds every call to the folder policy, then routes it), the
// tools and resources on mcp-go's server behind the protocol core, the
// guard that says which calls a request may make, and its doctor. It
// knows no transport.
package vaultserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tidwall/gjson"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// Name is the server's name in initialize.
const Name = "obsidian-mcp"

// instructions are sent in initialize for the model.
const instructions = `Tools for one Obsidian vault. Paths are vault-relative with forward slashes and an extension (Projects/Plan.md). ` +
	`A note is given by path (exact) or name (resolved like a wikilink: case-insensitive, .md optional); a name that matches several notes fails with AMBIGUOUS_NAME listing them. ` +
	`Reads and edits return the note's etag: pass it as if_match to write only if the note is unchanged, else REVISION_CONFLICT gives the current one. ` +
	`Lists are paged: limit (default 20, search 10; max 100), and next_cursor passed as cursor for more; no answer exceeds about 25,000 tokens. ` +
	`To find notes, search or list them; read long notes by section or lines after obsidian_get_outline. ` +
	`Creating never overwrites unless overwrite is true; deleting goes to the trash unless permanent is true. Failures carry data.errorCode and data.hint saying what to do. ` +
	`The user may hide notes or limit where you write: a PERMISSION_DENIED naming data.rule is their choice, so do not look for another way to that note. ` +
	`Notes are also resources (obsidian-mcp://note/<path>) that a client can attach.`

// Workers is how many tool calls run at once; each may hold a CLI process.
const Workers = 8

// Server is what serves the tools of one vault on every transport: the
// engine on the vault folder, the Obsidian CLI, and the router between
// them, which holds every call to the folder policy before it routes it.
type Server struct {
	cfg    Config
	logger *slog.Logger
	vault  tools.Vault
	router *backend.Router
	cli    *obsidiancli.Client
	// CallBound bounds one tool call: it runs a handful of CLI commands at
	// most, and stops at the first that fails, so two timeouts bound it.
	CallBound time.Duration
	close     func()
	prompts   *promptSet
	// record keeps the vault's change record; nil when none is kept.
	record *keeper
	// vaultReadOnly is true when this vault alone is read-only, of a
	// server of several (--read-only-vaults).
	vaultReadOnly bool
	// others are the vaults after the first of a server of several
	// (--vault name=folder, more than once), each with its own backends,
	// policy and index.
	others []*Server
}

// Open opens the vault's backends as cfg says. What a crashed server left
// half done in the folder is completed first (unless read-only). Close
// releases them.
func Open(cfg Config, logger *slog.Logger) (*Server, error) {
	if len(cfg.Vaults) > 1 {
		return openSeveral(cfg, logger)
	}
	cli := &obsidiancli.Client{
		Bin:             cfg.ObsidianBin,
		Vault:           cfg.Vault,
		Timeout:         cfg.Timeout,
		CommandTimeouts: cfg.CommandTimeouts,
		RetryDelay:      500 * time.Millisecond,
		Logger:          logger,
	}
	st := &Server{cfg: cfg, logger: logger, close: func() {}, cli: cli}
	var router *backend.Router
	// Every change the tools make is recorded before it lands (the
	// engine's writes add their parts), and obsidian_history reads it.
	if cfg.ChangesDir != "off" {
		st.record = &keeper{cfg: cfg, logger: logger, folder: func() string {
			if cfg.VaultPath != "" {
				return cfg.VaultPath
			}
			if router == nil {
				return ""
			}
			if f := router.KnownFolder(); f != nil {
				return f.Dir()
			}
			return ""
		}}
	}
	// One engine on the folder serves both backends, so their edits are
	// serialised together and the file list is cached once.
	var folder *native.Engine
	if cfg.VaultPath != "" {
		opts := []native.Option{native.WithPolicy(cfg.Policy), native.WithLogger(logger), native.WithChangeRecord(st.record.record)}
		v, err := native.Open(cfg.VaultPath, append(opts, folderOptions(cfg, logger)...)...)
		if err != nil {
			return nil, err
		}
		if !cfg.ReadOnly {
			// What a crashed server left half done is completed (or rolled
			// back) before anything else is written, and its temporary
			// files removed; the log says what was found.
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
			_, err := v.Recover(ctx)
			cancel()
			if err != nil {
				logger.Warn("could not check the vault for edits a crash interrupted; the next write will", "err", err)
			}
		}
		st.close = func() { _ = v.Close() }
		folder = v
	}
	router = &backend.Router{Mode: cfg.Backend, Folder: folder, Recheck: cfg.Recheck, Logger: logger, Rules: cfg.Policy,
		FolderOptions: folderOptions(cfg, logger)}
	if cfg.Backend != backend.Native {
		router.App = backend.AppOf(&obsidiancli.Backend{CLI: cli, Logger: logger, Policy: router.Policy})
	}
	// Every tool reaches the vault through the router's adapters, which
	// hold each call to the folder policy (--read-paths, --write-paths,
	// --deny-paths and the vault's .mcpignore) and then route it.
	vault := router.Vault()
	vault.Ask = tools.Elicit{}
	if st.record != nil {
		vault.History = historyView{keeper: st.record, policy: router.Policy}
		vault.Undo = undoer{historyView: vault.History.(historyView), engine: router.KnownFolder}
	}
	st.router = router
	closeFolder := st.close
	st.close = func() {
		_ = router.Close() // the folder learned from the app, if any
		closeFolder()
		if st.record != nil {
			st.record.mu.Lock()
			st.record.close()
			st.record.closed = true
			st.record.mu.Unlock()
		}
	}
	if st.record != nil && cfg.VaultPath != "" {
		// Read at once, so that the first obsidian_history answers from
		// memory: reading a record of 10,000 changes takes about 0.2 s.
		go st.record.get()
	}
	st.vault = vault
	longest := cfg.Timeout
	for _, d := range cfg.CommandTimeouts {
		longest = max(longest, d)
	}
	st.CallBound = 2*longest + 5*time.Second
	every := cfg.PromptsEvery
	if every == 0 {
		every = 3 * time.Second
	}
	st.prompts = &promptSet{vault: st.vault, logger: logger, every: every,
		folder: func() bool { return cfg.Backend == backend.Native || router.KnownFolder() != nil }}
	return st, nil
}

// folderOptions are the options of the engine on the vault folder that
// come from the configuration: the index's collector hook, and where the
// index is kept between runs.
func folderOptions(cfg Config, logger *slog.Logger) []native.Option {
	opts := []native.Option{native.WithIndexBuildHook(cfg.IndexBuildHook), native.WithSearchPatience(cfg.SearchPatience)}
	switch cfg.IndexDir {
	case "off":
	case "":
		// The user's cache folder, never the vault: a saved index is
		// derived data a sync client or obsidian-git would carry, and a
		// folder inside the vault can be turned into a link out of it.
		base, err := native.CacheIndexBase()
		if err != nil {
			logger.Warn("no cache folder for the search index; it is built on every start", "err", err)
			break
		}
		opts = append(opts, native.WithSavedIndex(base))
	default:
		opts = append(opts, native.WithSavedIndex(cfg.IndexDir))
	}
	return opts
}

// Close releases the vault folder and its index.
func (st *Server) Close() {
	for _, o := range st.others {
		o.Close()
	}
	st.prompts.close()
	st.close()
}

// openSeveral opens each vault of cfg.Vaults as a server of its own; the
// first answers for them all.
func openSeveral(cfg Config, logger *slog.Logger) (*Server, error) {
	var opened []*Server
	for i, v := range cfg.Vaults {
		one := cfg
		one.Vaults, one.Vault, one.VaultPath = nil, v.Name, v.Path
		alone := !cfg.ReadOnly && slices.ContainsFunc(cfg.ReadOnlyVaults, func(n string) bool { return strings.EqualFold(n, v.Name) })
		one.ReadOnly = one.ReadOnly || alone
		l := logger // the first's logs every call, whichever vault it names
		if i > 0 {
			l = logger.With("vault", v.Name)
		}
		st, err := Open(one, l)
		if err != nil {
			for _, o := range opened {
				o.Close()
			}
			return nil, fmt.Errorf("vault %s: %w", v.Name, err)
		}
		st.vaultReadOnly = alone
		opened = append(opened, st)
	}
	first := opened[0]
	first.cfg.Vaults = cfg.Vaults
	first.others = opened[1:]
	for _, o := range first.others {
		first.CallBound = max(first.CallBound, o.CallBound)
	}
	return first, nil
}

// tools are the tools served: one vault's, or several vaults' with a
// vault argument.
func (st *Server) tools() []server.ServerTool {
	list := func(s *Server) []server.ServerTool {
		l := tools.Select(guarded(recorded(tools.All(s.vault), s.record), s.guard()), s.cfg.Tools)
		if !s.cfg.Commands {
			l = tools.WithoutCommands(l)
		}
		if !s.cfg.OutputSchemas {
			l = tools.WithoutOutputSchemas(l)
		}
		return l
	}
	if len(st.others) == 0 {
		return list(st)
	}
	infos := []tools.VaultInfo{{Name: st.cfg.Vault, Path: st.cfg.VaultPath, Default: true}}
	sets := [][]server.ServerTool{list(st)}
	for _, o := range st.others {
		infos = append(infos, tools.VaultInfo{Name: o.cfg.Vault, Path: o.cfg.VaultPath})
		sets = append(sets, list(o))
	}
	all := tools.Several(infos, sets)
	if !st.cfg.OutputSchemas {
		all = tools.WithoutOutputSchemas(all)
	}
	return all
}

// CoreOptions say how a face wants the protocol core.
type CoreOptions struct {
	// DeferTools builds the tool list (JSON Schema reflection over every
	// tool's arguments, a few milliseconds) after initialize is answered,
	// or when a request first needs it, so that start-up stays lazy.
	DeferTools bool
	// CallTimeout bounds each call in the core; 0 leaves it to the face.
	CallTimeout time.Duration
	// Started, when set, runs once start-up is over: first in the work
	// put off until initialize is answered (DeferTools), else at once.
	Started func()
}

// Core is the vault's MCP server (tools, the notes as resources, hooks)
// behind the protocol core that every transport hands messages to.
func (st *Server) Core(version string, o CoreOptions) *protocol.Core {
	s := newServer(st.cfg.ToolErrors, len(st.others) > 0, st.logger, version, st.vault, st.Guard(), st.prompts.listing)
	core := protocol.New(s, protocol.Options{Logger: st.logger, Workers: Workers, CallTimeout: o.CallTimeout, MaxBatch: st.cfg.MaxBatch})
	st.prompts.attach(s)
	add := func() {
		if o.Started != nil {
			// First: what follows (the prompt look's index load) saves
			// and puts back the process's settings.
			o.Started()
		}
		s.AddTools(st.tools()...)
	}
	if o.DeferTools {
		core.Defer(func() {
			add()
			st.prompts.begin()
		})
	} else {
		add()
		st.prompts.begin()
	}
	return core
}

// LogAttrs describe the server as it starts.
func (st *Server) LogAttrs(version string) []any {
	cfg := st.cfg
	attrs := []any{"version", version, "backend", cfg.Backend, "vault", cfg.Vault, "vault_path", cfg.VaultPath,
		"timeout", cfg.Timeout, "tool_errors", cfg.ToolErrors, "read_only", cfg.ReadOnly,
		"read_paths", cfg.setting("read-paths").Value, "write_paths", cfg.setting("write-paths").Value, "deny_paths", cfg.setting("deny-paths").Value}
	if len(st.others) > 0 {
		names := []string{cfg.Vault}
		for _, o := range st.others {
			names = append(names, o.cfg.Vault)
		}
		attrs = append(attrs, "vaults", names)
	}
	return attrs
}

// Health says whether the tools can reach the vault: "degraded" when the
// app cannot be reached and no vault folder is known, as the envelope
// API's /health reports it.
func (st *Server) Health(ctx context.Context) (status, detail string) {
	if st.cfg.Backend == backend.Native || st.router.KnownFolder() != nil {
		return "ok", ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := st.cli.Run(ctx, "version"); err != nil {
		return "degraded", "the Obsidian app cannot be reached (" + errors.From(err).Message + "), and no vault folder is set (--vault-path)"
	}
	return "ok", ""
}

// PolicyLoaded reports whether the folder policy is in force: false when
// the vault's ignore file cannot be used (every note is then hidden).
func (st *Server) PolicyLoaded(ctx context.Context) bool { return st.router.Policy(ctx).Err() == nil }

// newServer is the MCP server without tools: the notes as resources, hooks
// and options.
func newServer(toolErrors string, several bool, logger *slog.Logger, version string, vault tools.Vault, guard auth.Guard, listingPrompts func(context.Context)) *server.MCPServer {
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	hooks.AddBeforeListPrompts(func(ctx context.Context, _ any, _ *mcp.ListPromptsRequest) { listingPrompts(ctx) })
	hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		listed(ctx, res, guard)
	})
	notes := tools.Resources(vault)
	// mcp-go lists only resources registered one by one; a vault's notes
	// come and go, so the listing is filled in from the vault, page by
	// page, on its way out.
	hooks.AddAfterListResources(func(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		list, next, err := notes.List(ctx, string(req.Params.Cursor))
		if err != nil {
			logger.Warn("resources/list: the vault's notes could not be listed", "err", err)
			list, next = []mcp.Resource{}, ""
		}
		res.Resources, res.NextCursor = list, mcp.Cursor(next)
	})
	s := server.NewMCPServer(Name, version,
		server.WithToolCapabilities(false), // the tool set never changes
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(true), // the vault's prompt notes come and go
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(callMiddleware(logger, toolErrors, several)),
		server.WithInstructions(instructions),
		server.WithTitle("Obsidian"),
	)
	s.AddResourceTemplates(notes.Template)
	return s
}

// callMiddleware logs every call (with the vault it names, on a server of
// several), recovers panics, and renders failures: typed errors for the
// wire layer to carry (protocol.ToolFailure), or isError results.
func callMiddleware(logger *slog.Logger, toolErrors string, several bool) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			start := time.Now()
			tool := req.Params.Name
			logger := logger
			if several {
				if v := vaultArg(req); v != "" {
					logger = logger.With("vault_arg", v) // which of several vaults
				}
			}
			defer func() {
				if r := recover(); r != nil {
					logger.Error("tool panicked", "tool", tool, "panic", r, "stack", string(debug.Stack()))
					res, err = nil, errors.E(errors.Internal, "internal error in %s: %v", tool, r)
				}
				elapsed := time.Since(start)
				if err == nil {
					logger.Info("tool call", "tool", tool, "duration", elapsed, "outcome", "ok")
					return
				}
				e := errors.From(err)
				level := slog.LevelInfo
				if e.Kind == errors.Internal {
					level = slog.LevelError
				}
				attrs := []any{"tool", tool, "duration", elapsed, "outcome", e.Kind, "message", e.Message}
				if e.Cause != nil {
					attrs = append(attrs, "cause", e.Cause)
				}
				logger.Log(ctx, level, "tool call", attrs...)
				if toolErrors == ToolErrorsResult && !protocol.Typed(ctx) {
					res, err = errorResult(e), nil
					return
				}
				res, err = protocol.ToolFailure(e), nil
			}()
			if ctx.Err() != nil {
				// Cancelled or timed out before the handler started.
				err = errors.E(errors.Cancelled, "%s was cancelled before it started; nothing was done", tool).WithCause(ctx.Err())
				return nil, err
			}
			return next(ctx, req)
		}
	}
}

// errorResult is a failure as an isError result, with the same code,
// message and data as the protocol error, as JSON text. It carries no
// structuredContent: every tool declares an output schema for its success,
// which the failure cannot match, and the official TypeScript SDK checks
// structuredContent against it even when isError is set, so the client
// (Claude Desktop, Cursor, the MCP Inspector) would throw a schema error
// and the model would never see the message and hint (MCP 2025-06-18:
// structured content must conform to the output schema).
func errorResult(e *errors.Error) *mcp.CallToolResult {
	text, err := json.Marshal(map[string]any{"success": false, "error": protocol.Object(e)})
	if err != nil {
		// Unreachable for our data (strings, numbers, slices); keep the flag.
		text = []byte(`{"success":false}`)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(text))}, IsError: true}
}

// vaultArg is the vault a call names, of a server of several, or "": a
// scan of the arguments' bytes for the one member, not a decode.
func vaultArg(req mcp.CallToolRequest) string {
	if len(req.Params.RawArguments) > 0 {
		return gjson.GetBytes(req.Params.RawArguments, "vault").Str
	}
	m, _ := req.Params.Arguments.(map[string]any)
	v, _ := m["vault"].(string)
	return v
}
