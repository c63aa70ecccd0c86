package gateway

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
)

// CommandConfig is how `obsidian-mcp gateway` was started (ParseCommand):
// the rest is in its YAML file.
type CommandConfig struct {
	File        string
	LogLevel    slog.Level
	ShowVersion bool
	Ignored     []string
}

// Specs are the gateway command's own settings, for --help and the README.
func Specs() []settings.Spec {
	return []settings.Spec{
		{Flag: "config", Env: "OBSIDIAN_MCP_GATEWAY_CONFIG", Default: "gateway.yaml", Help: "The gateway's YAML file: listeners, allowed hosts and origins, limits, ping interval, and the namespaces."},
		{Flag: "log-level", Env: "OBSIDIAN_MCP_LOG_LEVEL", Default: "info", Help: "Log level: `debug`, `info`, `warn` or `error` (stderr only); debug adds a line per request."},
	}
}

// ParseCommand reads the gateway command's flags and environment.
func ParseCommand(args []string, getenv func(string) string) (CommandConfig, error) {
	c := CommandConfig{}
	vals, ignored, err := settings.Read(Specs(), args, getenv, &c.ShowVersion, "obsidian-mcp gateway --help")
	if err != nil {
		return c, err
	}
	c.Ignored, c.File = ignored, vals[0].Value
	if c.LogLevel, err = settings.LogLevel(vals[1].Value); err != nil {
		return c, fmt.Errorf("invalid %s %q: %v", vals[1].Source, vals[1].Value, err)
	}
	return c, nil
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
  limits: {max_request: 1MB, max_response: 10MB, max_connections: 5}
  ping_interval: 30s
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
