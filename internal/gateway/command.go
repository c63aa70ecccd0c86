package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
)

// CommandConfig is how `obsidian-mcp gateway` was started (ParseCommand):
// the rest is in its YAML file.
type CommandConfig struct {
	File string
	// Key, when set, is required on every request to both listeners, which
	// may then listen beyond loopback.
	Key         httpapi.Key
	LogLevel    slog.Level
	ShowVersion bool
	Ignored     []string
}

// rows are the gateway command's own settings.
func rows() []settings.Row[CommandConfig] {
	return []settings.Row[CommandConfig]{
		{Flag: "config", Env: "OBSIDIAN_MCP_GATEWAY_CONFIG", Default: "gateway.yaml", Help: "The gateway's YAML file: listeners, allowed hosts and origins, limits, ping interval, and the namespaces.",
			Set: func(c *CommandConfig, v string) error { c.File = v; return nil }},
		{Flag: "log-level", Env: "OBSIDIAN_MCP_LOG_LEVEL", Default: "info", Help: "Log level: `debug`, `info`, `warn` or `error` (stderr only); debug adds a line per request.",
			Set: func(c *CommandConfig, v string) (err error) { c.LogLevel, err = settings.LogLevel(v); return err }},
		{Flag: "api-key-file", Env: "OBSIDIAN_MCP_API_KEY_FILE", Help: "A file holding the API key (its first line; at least 16 characters, no spaces). With a key, every request to both listeners must carry it as `Authorization: Bearer <key>`, `X-Api-Key` or `X-ObsiScripta-Api-Key` (the dashboard asks for it once), and they may listen beyond loopback; without one, both must listen on loopback.",
			Set: func(c *CommandConfig, v string) (err error) {
				if v != "" {
					c.Key, err = httpapi.ReadKeyFile(v)
				}
				return err
			}},
		{Env: "OBSIDIAN_MCP_API_KEY", Secret: true, Help: "The API key itself, as an environment variable (never a flag: a command line is visible to every user of the machine). `--api-key-file` wins.",
			Set: func(c *CommandConfig, v string) (err error) {
				if v != "" && !c.Key.Set() {
					c.Key, err = httpapi.NewKey(v)
				}
				return err
			}},
	}
}

// Specs are the gateway command's own settings, for --help and the README.
func Specs() []settings.Spec { return settings.Specs(rows()) }

// ParseCommand reads the gateway command's flags and environment.
func ParseCommand(args []string, getenv func(string) string) (CommandConfig, error) {
	c := CommandConfig{}
	p, err := settings.Parse(rows(), &c, args, getenv, &c.ShowVersion, "obsidian-mcp gateway --help")
	c.Ignored = p.Ignored
	return c, err
}

// Usage is `obsidian-mcp gateway --help`.
func Usage() string {
	var b strings.Builder
	b.WriteString(`obsidian-mcp gateway: many vaults and stdio MCP servers behind one HTTP endpoint.

Each namespace of the YAML file is served at /mcp/{namespace}: a vault, by
this program's own engine in this process, or a command, any stdio MCP
server run as a subprocess. Clients use HTTP+SSE (GET /mcp/{namespace} and
POST /mcp/{namespace}/message) or MCP Streamable HTTP (POST, GET and DELETE
/mcp/{namespace}); /health and /health/{namespace} report on them, and the
debug listener shows every message. Logs go to stderr.

Usage:
  obsidian-mcp gateway [--config gateway.yaml] [flags]

Flags (each may also be set by its environment variable; a flag wins):
`)
	settings.WriteHelp(&b, Specs())
	b.WriteString(`
A gateway.yaml:

  listen: 127.0.0.1:8080          # the API (default)
  debug_listen: 127.0.0.1:8081    # the dashboard (default)
  allowed_hosts: [localhost, 127.0.0.1]
  allowed_origins: [http://localhost:3000]
  limits: {max_request: 1MB, max_response: 10MB, max_connections: 5, max_sessions: 256, max_batch: 100, request_timeout: 5m}
  ping_interval: 30s
  # Sign-in for Claude on the web and phone (README): the gateway's own
  # authorization server, or {issuer: https://id.example.com}; HTTPS from
  # other machines by certificates of its own, or {cert: …, key: …}, or
  # behind_proxy: [192.168.1.10].
  # oauth: {built_in: true, public_url: https://vault.example.com}
  # tls: {acme: [vault.example.com]}
  namespaces:
    notes:                        # a vault, served in this process
      vault_path: ~/Notes
      read_only: true
    work:
      vault_path: ~/Work
      deny_paths: [Private/**]
    files:                        # any stdio MCP server, run as a subprocess
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", /home/me/Documents]
`)
	return b.String()
}

// CheckExposure refuses what the gateway must not do: listen beyond this
// machine with no API key, on either listener (the dashboard shows every
// message, notes included), where anyone who could reach it could read
// and change every vault namespace and run every command namespace's
// tools; with OAuth the namespaces take tokens instead, but they must not
// cross the network in the clear.
func CheckExposure(cfg *Config, key httpapi.Key) error {
	var errs []error
	if cfg.OAuth.On() && !httpapi.Loopback(cfg.Listen) && !cfg.HTTPS() && len(cfg.BehindProxy) == 0 {
		errs = append(errs, fmt.Errorf("listen %s reaches beyond this machine with OAuth, but over plain HTTP: tokens would cross the network in the clear. Serve HTTPS (tls: {cert, key} or {acme: [domain]}), or name the reverse proxy that does (behind_proxy), or listen on 127.0.0.1 behind a tunnel", cfg.Listen))
	}
	if key.Set() {
		return errors.Join(errs...)
	}
	for _, l := range []struct{ key, addr string }{{"listen", cfg.Listen}, {"debug_listen", cfg.DebugListen}} {
		if !httpapi.Loopback(l.addr) && (l.key == "debug_listen" || !cfg.OAuth.On()) {
			errs = append(errs, fmt.Errorf("%s %s reaches beyond this machine, and no API key is set: anyone on the network could use every namespace. Set OBSIDIAN_MCP_API_KEY or --api-key-file (at least %d characters, e.g. openssl rand -hex 32), or listen on 127.0.0.1", l.key, l.addr, httpapi.MinKeyLength))
		}
	}
	return errors.Join(errs...)
}
