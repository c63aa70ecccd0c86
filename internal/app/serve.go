package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"

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
