// Package app dispatches obsidian-mcp's commands: it picks the command
// (the stdio server, serve, bridge, gateway, doctor, oauth), reads its
// settings, sets up logging, and hands it to the package that owns it
// (internal/serve, bridge, gateway, auth/authserver), or serves the vault
// (internal/vaultserver) on stdio; a gateway's vault namespaces are
// opened here, the one place that knows both. cmd/obsidian-mcp only
// calls Main.
package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/lmittmann/tint"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/internal/serve"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

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
	limitMemory(getenv)
	settle := holdGC(getenv)
	defer settle() // whatever ended Main early (--help, a bad flag)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		settle() // a command other than the stdio server: no start-up to speed
	}
	if len(args) > 0 && args[0] == "doctor" {
		exe, _ := os.Executable() // only shown; "" prints as unknown
		return Doctor(ctx, args[1:], getenv, std.Out, version, vaultserver.Machine{Executable: exe})
	}
	if len(args) > 0 && args[0] == "bridge" {
		return mainBridge(ctx, args[1:], getenv, std, version)
	}
	if len(args) > 0 && args[0] == "gateway" {
		return mainGateway(ctx, args[1:], getenv, std, version)
	}
	if len(args) > 0 && args[0] == "history" {
		return changes.Command(args[1:], getenv, changes.Streams{Out: std.Out, Err: std.Err}, func(base, vault string, req note.UndoRequest) (note.Undone, error) {
			return vaultserver.UndoInTerminal(ctx, base, vault, req, NewLogger(std.Err, slog.LevelWarn))
		})
	}
	if len(args) > 0 && args[0] == "oauth" {
		return authserver.Command(args[1:], getenv, authserver.Streams(std))
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "serve" {
		if args[0] == "help" {
			fmt.Fprint(std.Out, vaultserver.Usage())
			return 0
		}
		return unknownCommand(std.Err, args[0])
	}
	overHTTP := len(args) > 0 && args[0] == "serve"
	var cfg serve.Config
	var err error
	usage := vaultserver.Usage
	if overHTTP {
		args, usage = args[1:], serve.Usage
		cfg, err = serve.ParseConfig(args, getenv)
	} else {
		cfg.Config, err = vaultserver.ParseConfig(args, getenv)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(std.Out, usage())
		return 0
	case err != nil:
		return configError(std.Err, "obsidian-mcp", err, "`obsidian-mcp doctor` checks the whole setup")
	case cfg.ShowVersion:
		fmt.Fprintf(std.Out, "obsidian-mcp %s\n", version)
		return 0
	}
	logger := NewLogger(std.Err, cfg.LogLevel)
	if cfg.HTTP.OAuthBuiltIn {
		// The built-in authorization server's provider (zitadel/oidc)
		// logs through slog's default: as the program does.
		slog.SetDefault(logger)
	}
	for _, note := range cfg.Ignored {
		logger.Warn("ignored " + note)
	}
	cfg.IndexBuildHook = relaxGCForBuild
	if overHTTP {
		err = serve.Run(ctx, cfg, logger, version, nil)
	} else {
		cfg.Started = settle
		err = Serve(ctx, cfg.Config, std.In, std.Out, logger, version)
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
		return 1
	}
	return 0
}

// commands are obsidian-mcp's subcommands.
var commands = []string{"serve", "bridge", "gateway", "doctor", "history", "oauth", "help"}

// unknownCommand reports a word that is no command, with the nearest one
// when it looks like a typo, and returns the exit status for bad usage.
func unknownCommand(w io.Writer, word string) int {
	best, dist := "", 3 // more than two edits away is no typo
	for _, c := range commands {
		if d := editDistance(word, c); d < dist {
			best, dist = c, d
		}
	}
	msg := fmt.Sprintf("unknown command %q", word)
	if best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return configError(w, "obsidian-mcp", errors.New(msg), "the commands are serve, bridge, gateway, doctor, history and oauth (obsidian-mcp --help; each has its own --help); flags start with --")
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
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
func Serve(ctx context.Context, cfg vaultserver.Config, in io.Reader, out io.Writer, logger *slog.Logger, version string) error {
	cfg.IndexBuildHook = relaxGCForBuild
	st, err := vaultserver.Open(cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	// Start-up stays lazy: the tool list is built after initialize.
	core := st.Core(version, vaultserver.CoreOptions{DeferTools: true, Started: cfg.Started})
	logger.Info("obsidian-mcp ready", st.LogAttrs(version)...)
	return stdio.Serve(ctx, core, in, out, stdio.Options{Logger: logger, DrainTimeout: st.CallBound, Gone: func() bool { return stdio.OutputClosed(out) }})
}
