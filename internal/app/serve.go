package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/tools"

	"github.com/obsidian-mcp/obsidian-mcp/internal/calls"
	"github.com/obsidian-mcp/obsidian-mcp/internal/httpapi"
)

// ServeHTTP runs `obsidian-mcp serve`: the stdio server's tools, backends,
// policy and error contract, over HTTP on cfg.HTTP.Listen, until ctx ends
// (SIGINT/SIGTERM); calls in flight then finish. ready, when set, learns
// the address once the server listens.
func ServeHTTP(ctx context.Context, cfg Config, logger *slog.Logger, version string, ready func(addr net.Addr)) error {
	st, err := openStack(cfg, logger)
	if err != nil {
		return err
	}
	defer st.close()
	errs := calls.NewErrors()
	s := newServer(errs, cfg.ToolErrors, logger, version, st.vault, cfg.ReadOnly)
	s.AddTools(toolSet(st.vault, cfg.ReadOnly)...)
	h := httpapi.New(s, errs, httpapi.Options{
		APIKey:       cfg.HTTP.APIKey,
		AllowedHosts: cfg.HTTP.AllowedHosts,
		CORSOrigins:  cfg.HTTP.CORSOrigins,
		CallTimeout:  st.callBound,
		Logger:       logger,
		Version:      version,
		GitSHA:       gitSHA(),
		Confirm:      tools.NeedsConfirmation,
		Health:       st.health(cfg),
		PolicyLoaded: func(ctx context.Context) bool { return st.router.Policy(ctx).Err() == nil },
	})
	ln, err := net.Listen("tcp", cfg.HTTP.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", cfg.HTTP.Listen, err)
	}
	attrs := append(st.logAttrs(cfg, version), "url", "http://"+ln.Addr().String()+"/mcp", "api_key", cfg.HTTP.APIKey != "")
	logger.Info("obsidian-mcp serving over HTTP", attrs...)
	if ready != nil {
		ready(ln.Addr())
	}
	err = h.Serve(ctx, ln, st.callBound)
	if err == nil {
		logger.Info("stopped")
	}
	return err
}

// health says whether the tools can reach the vault: "degraded" when the
// app cannot be reached and no vault folder is known, as the envelope
// API's /health reports it.
func (st *stack) health(cfg Config) func(ctx context.Context) (string, string) {
	return func(ctx context.Context) (string, string) {
		if cfg.Backend == backend.Native || st.router.KnownFolder() != nil {
			return "ok", ""
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, err := st.cli.Run(ctx, "version"); err != nil {
			return "degraded", "the Obsidian app cannot be reached (" + errors.From(err).Message + "), and no vault folder is set (--vault-path)"
		}
		return "ok", ""
	}
}

// gitSHA is the commit the binary was built from, when Go recorded it.
func gitSHA() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value[:min(len(s.Value), 12)]
		}
	}
	return ""
}
