package serve

import (
	"context"
	"net"

	"github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// Doctor is serve's part of doctor: how `obsidian-mcp serve` would
// listen with these settings, and whether it could. It does not decide
// readiness: the stdio server needs none of it.
func Doctor(cfg HTTPConfig) func(*doctor.Report) {
	return func(d *doctor.Report) {
		if cfg.Listen == "" {
			return
		}
		ln, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			// Not a failure: it may be obsidian-mcp serve itself.
			d.Skip("HTTP (obsidian-mcp serve): %s is taken (%v): if serve is not what runs there, choose a free port with --listen (OBSIDIAN_MCP_LISTEN)", cfg.Listen, err)
			return
		}
		_ = ln.Close()
		if !httpapi.Loopback(cfg.Listen) && !cfg.Key.Set() && cfg.OAuthIssuer == "" && !cfg.OAuthBuiltIn {
			d.Skip("HTTP (obsidian-mcp serve): would not start: %s reaches beyond this machine and no API key is set (the configuration line above says how to fix it)", cfg.Listen)
			return
		}
		reach := "loopback only, no API key"
		switch {
		case cfg.OAuthBuiltIn:
			reach = "every request must carry an access token of the built-in authorization server (serve --oauth) or the API key, if set"
		case cfg.OAuthIssuer != "" && cfg.Key.Set():
			reach = "every request must carry an OAuth access token from " + cfg.OAuthIssuer + " or the API key"
		case cfg.OAuthIssuer != "":
			reach = "every request must carry an OAuth access token from " + cfg.OAuthIssuer
		case cfg.Key.Set():
			reach = "every request must carry the API key"
		}
		if !httpapi.Loopback(cfg.Listen) && (cfg.Key.Set() || cfg.OAuthIssuer != "" || cfg.OAuthBuiltIn) {
			reach = "reachable from the network; " + reach
		}
		scheme := "http"
		if cfg.TLSCert != "" || len(cfg.ACME.Domains) > 0 {
			scheme = "https"
		}
		d.OK("HTTP (obsidian-mcp serve): would listen on %s://%s (/mcp, /bridge/v1, /v1/mcp): %s; %s", scheme, cfg.Listen, reach, httpapi.BrowserReach(cfg.CORSOrigins, "--cors-origin '*'"))
		oauthDoctor(context.Background(), cfg, d)
	}
}
