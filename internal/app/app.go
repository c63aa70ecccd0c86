// Package app wires obsidian-mcp together: configuration, logging, the
// backends and the router between them, the tool registry, mcp-go's server,
// the protocol core and the transports. cmd/obsidian-mcp only calls Main.
package app

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lmittmann/tint"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// Name is the server's name in initialize.
const Name = "obsidian-mcp"

// instructions are sent in initialize for the model.
const instructions = `Tools for one Obsidian vault. Paths are vault-relative with forward slashes and an extension (Projects/Plan.md). ` +
	`To find notes, search (obsidian_search_notes) or list them; read long notes by section or lines after obsidian_get_outline. ` +
	`Tools on existing notes take either path (exact) or name (resolved like a wikilink); an ambiguous name fails with AMBIGUOUS_NAME and lists candidates. ` +
	`Creating never overwrites unless overwrite is true; deleting goes to the trash unless permanent is true. Failures carry data.errorCode and data.hint saying what to do. ` +
	`The user may hide notes or limit where you write: a PERMISSION_DENIED naming data.rule is their choice, so do not look for another way to that note. ` +
	`Notes are also resources (obsidian-mcp://note/<path>) that a client can attach.`

// workers is how many tool calls run at once; each may hold a CLI process.
const workers = 8

// Streams are a process's standard streams.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Main runs the program and returns its exit status: 0 after a clean
// shutdown (end of input, the exit notification, SIGINT/SIGTERM through
// ctx), 2 for bad flags or environment, 1 for any other failure.
func Main(ctx context.Context, args []string, getenv func(string) string, std Streams, version string) int {
	version = resolveVersion(version)
	if len(args) > 0 && args[0] == "doctor" {
		exe, _ := os.Executable() // only shown; "" prints as unknown
		return Doctor(ctx, args[1:], getenv, std.Out, version, Machine{Executable: exe})
	}
	if len(args) > 0 && args[0] == "bridge" {
		return mainBridge(ctx, args[1:], getenv, std, version)
	}
	if len(args) > 0 && args[0] == "gateway" {
		return mainGateway(ctx, args[1:], getenv, std, version)
	}
	serve := len(args) > 0 && args[0] == "serve"
	parse := ParseConfig
	if serve {
		args, parse = args[1:], ParseServeConfig
	}
	cfg, err := parse(args, getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(std.Out, Usage())
		return 0
	case err != nil:
		return configError(std.Err, "obsidian-mcp", err, "`obsidian-mcp doctor` checks the whole setup")
	case cfg.ShowVersion:
		fmt.Fprintf(std.Out, "obsidian-mcp %s\n", version)
		return 0
	}
	logger := NewLogger(std.Err, cfg.LogLevel)
	for _, note := range cfg.Ignored {
		logger.Warn("ignored " + note)
	}
	if serve {
		err = ServeHTTP(ctx, cfg, logger, version, nil)
	} else {
		err = Serve(ctx, cfg, std.In, std.Out, logger, version)
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
		return 1
	}
	return 0
}

// configError reports invalid settings, a line each, then where to look,
// and returns the exit status for them.
func configError(w io.Writer, prog string, err error, hint string) int {
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "%s: %s\n", prog, line)
	}
	fmt.Fprintf(w, "%s: %s\n", prog, hint)
	return 2
}

// resolveVersion prefers the -ldflags version, then the module version
// `go install` records, then "dev".
func resolveVersion(v string) string {
	if v != "" && v != "dev" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// NewLogger logs to w through tint, in colour only when w is a terminal:
// MCP hosts capture stderr into files, where escape codes are noise.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(tint.NewTextHandler(w, &tint.Options{
		Level:      level,
		TimeFormat: "2006-01-02T15:04:05.000Z07:00",
		NoColor:    !isTerminal(w),
	}))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Serve answers MCP over in and out until in ends, the client sends exit,
// or ctx is cancelled. Every request read is answered before it returns.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer, logger *slog.Logger, version string) error {
	st, err := openStack(cfg, logger)
	if err != nil {
		return err
	}
	defer st.close()
	s := newServer(cfg.ToolErrors, logger, version, st.vault, cfg.ReadOnly)
	core := protocol.New(s, protocol.Options{Logger: logger, Workers: workers})
	// Start-up stays lazy: the tool list (JSON Schema reflection over every
	// tool's arguments, a few milliseconds) is built after initialize is
	// answered, or when a request needs it (protocol.Core.Defer).
	core.Defer(func() { s.AddTools(toolSet(st.vault, cfg.ReadOnly)...) })
	logger.Info("obsidian-mcp ready", st.logAttrs(cfg, version)...)
	return stdio.Serve(ctx, core, in, out, stdio.Options{Logger: logger, DrainTimeout: st.callBound, Gone: func() bool { return outputClosed(out) }})
}

// stack is what serves the tools on every transport: the engine on the
// vault folder, the Obsidian CLI, the router between them, and the guard
// that holds every call to the folder policy.
type stack struct {
	vault  tools.Vault
	router *backend.Router
	cli    *obsidiancli.Client
	// callBound bounds one tool call: it runs a handful of CLI commands at
	// most, and stops at the first that fails, so two timeouts bound it.
	callBound time.Duration
	close     func()
}

func openStack(cfg Config, logger *slog.Logger) (*stack, error) {
	cli := &obsidiancli.Client{
		Bin:             cfg.ObsidianBin,
		Vault:           cfg.Vault,
		Timeout:         cfg.Timeout,
		CommandTimeouts: cfg.CommandTimeouts,
		RetryDelay:      500 * time.Millisecond,
		Logger:          logger,
	}
	st := &stack{close: func() {}, cli: cli}
	// One engine on the folder serves both backends, so their edits are
	// serialised together and the file list is cached once.
	var folder *native.Engine
	if cfg.VaultPath != "" {
		v, err := native.Open(cfg.VaultPath, native.WithPolicy(cfg.Policy), native.WithLogger(logger), native.WithIndexBuildHook(relaxGCForBuild))
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
	router := &backend.Router{Mode: cfg.Backend, Folder: folder, Recheck: cfg.Recheck, Logger: logger, Rules: cfg.Policy,
		FolderOptions: []native.Option{native.WithIndexBuildHook(relaxGCForBuild)}}
	if cfg.Backend != backend.Native {
		router.App = &obsidiancli.Backend{CLI: cli, Logger: logger, Policy: router.Policy}
	}
	// Every tool reaches the vault through the guard, which holds it to
	// the folder policy (--read-paths, --write-paths, --deny-paths and the
	// vault's .mcpignore).
	guard := &backend.Guard{Next: router, Policy: router.Policy, Prepare: router.Learn}
	st.router = router
	closeFolder := st.close
	st.close = func() {
		_ = router.Close() // the folder learned from the app, if any
		closeFolder()
	}
	st.vault = tools.On(guard)
	longest := cfg.Timeout
	for _, d := range cfg.CommandTimeouts {
		longest = max(longest, d)
	}
	st.callBound = 2*longest + 5*time.Second
	return st, nil
}

// logAttrs describe the server as it starts.
func (st *stack) logAttrs(cfg Config, version string) []any {
	return []any{"version", version, "backend", cfg.Backend, "vault", cfg.Vault, "vault_path", cfg.VaultPath,
		"timeout", cfg.Timeout, "tool_errors", cfg.ToolErrors, "read_only", cfg.ReadOnly,
		"read_paths", cfg.setting("read-paths").Value, "write_paths", cfg.setting("write-paths").Value, "deny_paths", cfg.setting("deny-paths").Value}
}

// readOnlyRule names the setting that makes the server read-only, for the
// errors that refuse a write.
const readOnlyRule = "--read-only / OBSIDIAN_MCP_READ_ONLY"

// toolSet is the tools served: all of them, with the writes refused in
// read-only mode.
func toolSet(vault tools.Vault, readOnly bool) []server.ServerTool {
	if readOnly {
		return tools.ReadOnly(tools.All(vault), readOnlyRule)
	}
	return tools.All(vault)
}

// newServer is the MCP server without tools: the notes as resources, hooks
// and options.
func newServer(toolErrors string, logger *slog.Logger, version string, vault tools.Vault, readOnly bool) *server.MCPServer {
	hooks := &server.Hooks{}
	protocol.Hooks(hooks)
	if readOnly {
		hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
			tools.ListedReadOnly(res)
		})
	}
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
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(callMiddleware(logger, toolErrors)),
		server.WithInstructions(instructions),
		server.WithTitle("Obsidian"),
	)
	s.AddResourceTemplates(notes.Template)
	return s
}

// callMiddleware logs every call, recovers panics, and renders failures:
// typed errors for the wire layer to carry (protocol), or isError results.
func callMiddleware(logger *slog.Logger, toolErrors string) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			start := time.Now()
			tool := req.Params.Name
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
				res, err = nil, e
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
