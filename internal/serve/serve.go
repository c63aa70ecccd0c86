// Package serve is `obsidian-mcp serve`: the stdio server's tools,
// backends, policy and error contract over HTTP (package httpapi), with
// its settings, its part of doctor, and its OAuth: an external issuer's
// tokens, or the built-in authorization server's.
package serve

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/tools"

	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/authserver"
	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// Run runs `obsidian-mcp serve` until ctx ends (SIGINT/SIGTERM); calls in
// flight then finish. ready, when set, learns the address once the
// server listens.
func Run(ctx context.Context, cfg Config, logger *slog.Logger, version string, ready func(addr net.Addr)) error {
	st, err := vaultserver.Open(cfg.Config, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", cfg.HTTP.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w; choose another address with --listen (OBSIDIAN_MCP_LISTEN), e.g. 127.0.0.1:0 for any free port, or stop what listens there (obsidian-mcp doctor checks the port)", cfg.HTTP.Listen, explainTaken(err))
	}
	url := httpapi.ReachableURL(ln.Addr())
	tc, err := TLS(cfg.HTTP.TLSCert, cfg.HTTP.TLSKey, cfg.HTTP.ACME)
	if err != nil {
		_ = ln.Close()
		return err
	}
	if tc != nil {
		ln = tls.NewListener(ln, tc)
		url = "https://" + strings.TrimPrefix(url, "http://")
	}
	public := url
	allowed := append(slices.Clone(cfg.HTTP.AllowedHosts), cfg.HTTP.ACME.Domains...)
	switch {
	case cfg.HTTP.PublicURL != "":
		public = cfg.HTTP.PublicURL + "/mcp"
		allowed = append(allowed, publicHost(cfg.HTTP.PublicURL))
	case len(cfg.HTTP.ACME.Domains) > 0:
		// The CA reaches the name on 443: so do clients.
		public = "https://" + cfg.HTTP.ACME.Domains[0] + "/mcp"
	}
	oauth, err := resourceServer(ctx, cfg.HTTP, public)
	if err != nil {
		_ = ln.Close()
		return err
	}
	var as *authserver.Server
	if cfg.HTTP.OAuthBuiltIn {
		if as, oauth, err = builtInServer(cfg.HTTP, public, logger); err != nil {
			_ = ln.Close()
			return err
		}
	}
	core := st.Core(version, vaultserver.CoreOptions{})
	h, err := httpapi.New(core, httpapi.Options{
		Guard:          st.Guard(),
		Key:            cfg.HTTP.Key,
		OAuth:          oauth,
		TrustedProxies: cfg.HTTP.Proxies,
		AuthServer:     authserver.HandlerOf(as),
		AuthPaths:      authserver.PathsOf(as),
		AllowedHosts:   allowed,
		CORSOrigins:    cfg.HTTP.CORSOrigins,
		CallTimeout:    st.CallBound,
		Logger:         logger,
		Version:        version,
		GitSHA:         gitSHA(),
		Confirm:        tools.NeedsConfirmation,
		Health:         st.Health,
		PolicyLoaded:   st.PolicyLoaded,
	})
	if err != nil {
		_ = ln.Close()
		return err
	}
	// The URL file is written before the line announcing the server, so
	// whoever waits for one finds the other.
	if cfg.HTTP.URLFile != "" {
		if err := writeURLFile(cfg.HTTP.URLFile, url); err != nil {
			_ = ln.Close()
			return err
		}
		defer removeURLFile(cfg.HTTP.URLFile, url, logger)
	}
	attrs := append(st.LogAttrs(version), "url", url, "api_key", cfg.HTTP.Key.Set(), "oauth_issuer", cfg.HTTP.OAuthIssuer, "oauth", cfg.HTTP.OAuthBuiltIn)
	if public != url {
		attrs = append(attrs, "public_url", public)
	}
	logger.Info("obsidian-mcp serving over HTTP", attrs...)
	if ready != nil {
		ready(ln.Addr())
	}
	err = h.Serve(ctx, ln, st.CallBound)
	if err == nil {
		logger.Info("stopped")
	}
	return err
}

// TLS is serve's HTTPS, and the gateway's: the certificate files, or
// certificates from an ACME CA (its cache by default in obsidian-mcp's
// configuration folder); nil for plain HTTP.
func TLS(cert, key string, acme httpapi.ACME) (*tls.Config, error) {
	switch {
	case cert != "":
		tc, err := httpapi.TLSConfig(cert, key)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		return tc, nil
	case len(acme.Domains) > 0:
		a := acme
		var err error
		if a.Cache, err = settings.InConfigDir(a.Cache, "acme", "its cache", "--tls-acme-cache"); err != nil {
			return nil, fmt.Errorf("--tls-acme: %w", err)
		}
		tc, err := a.TLSConfig()
		if err != nil {
			return nil, fmt.Errorf("--tls-acme: %w", err)
		}
		return tc, nil
	}
	return nil, nil
}

// writeURLFile puts url in file whole (a temporary file renamed over it),
// so a bridge never reads half of it.
func writeURLFile(file, url string) error {
	if err := atomicfile.PutFile(file, []byte(url+"\n"), 0o600); err != nil {
		return fmt.Errorf("--url-file: %w", err)
	}
	return nil
}

// removeURLFile removes the URL file at stop, unless another server has
// written its own URL there since.
func removeURLFile(file, url string, logger *slog.Logger) {
	if data, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(data)) == url {
		if err := os.Remove(file); err != nil {
			logger.Warn("--url-file could not be removed", "file", file, "err", err)
		}
	}
}

// gitSHA is the commit the binary was built from, for the envelope API's
// meta.git_sha, which its clients expect never empty: the commit when Go
// recorded it (a build in a checkout), else the module's version (go
// install …@v1.2.3 records no commit), else "unknown".
func gitSHA() string {
	bi, ok := debug.ReadBuildInfo()
	return buildRevision(bi, ok)
}

func buildRevision(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "unknown"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			return s.Value[:min(len(s.Value), 12)]
		}
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "unknown"
}
