package vaultserver

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/httpapi"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// option is one setting. The table drives parsing, --help and the README.
type option struct {
	flag, env, def, help string
	set                  func(c *Config, v string) error
}

// serveOnly are the settings of `obsidian-mcp serve` alone, by variable.
var serveOnly = map[string]bool{
	"OBSIDIAN_MCP_LISTEN": true, "OBSIDIAN_MCP_API_KEY_FILE": true, "OBSIDIAN_MCP_API_KEY": true,
	"OBSIDIAN_MCP_ALLOWED_HOSTS": true, "OBSIDIAN_MCP_CORS_ORIGINS": true, "OBSIDIAN_MCP_URL_FILE": true,
}

// secrets are never shown (doctor, logs). A secret has no flag: a command
// line is visible to every user of the machine.
var secrets = map[string]bool{"OBSIDIAN_MCP_API_KEY": true}

// name is how errors and sources call the option.
func (o option) name() string {
	if o.flag == "" {
		return o.env
	}
	return "--" + o.flag
}

// booleans are the options that may be given bare: --read-only.
var booleans = map[string]bool{"read-only": true, "output-schemas": true, "commands": true}

// spec is an option as package settings reads it and the docs show it.
func (o option) spec() settings.Spec {
	return settings.Spec{Flag: o.flag, Env: o.env, Default: o.def, Help: o.help, Bool: booleans[o.flag], Repeat: o.flag == "vault"}
}

// specsOf are the specs of options of any command.
func specsOf[O interface{ spec() settings.Spec }](opts []O) []settings.Spec {
	specs := make([]settings.Spec, len(opts))
	for i, o := range opts {
		specs[i] = o.spec()
	}
	return specs
}

func options() []option {
	return []option{
		{"backend", "OBSIDIAN_MCP_BACKEND", string(backend.Auto), "Which backend serves the tools: `auto` uses the Obsidian app through its CLI while it answers, and the vault folder directly when the app is closed or not installed (if the folder is known: `--vault-path`, or learned from the app); `cli` only the app; `native` only the folder (needs `--vault-path`; works without Obsidian).",
			func(c *Config, v string) error {
				switch m := backend.Mode(strings.ToLower(strings.TrimSpace(v))); m {
				case backend.Auto, backend.CLI, backend.Native:
					c.Backend = m
					return nil
				}
				return fmt.Errorf("must be auto, cli or native")
			}},
		{"vault-path", "OBSIDIAN_VAULT_PATH", "", "The vault's folder (the one holding `.obsidian/`), for the native backend. A leading `~/` means your home folder.",
			func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				abs, err := folderPath(v)
				c.VaultPath = abs
				return err
			}},
		{"obsidian-bin", "OBSIDIAN_BIN", "", "Path of the Obsidian CLI. By default `obsidian` (on Windows `Obsidian.com`, never `Obsidian.exe`) is looked up on PATH, then where Obsidian installs it: macOS `/usr/local/bin/obsidian` and `Obsidian.app/Contents/MacOS/obsidian-cli`; Linux `~/.local/bin/obsidian`; Windows `%LOCALAPPDATA%\\Programs\\Obsidian` and `Program Files\\Obsidian`. `obsidian-mcp doctor` shows what was found.",
			func(c *Config, v string) error { c.ObsidianBin = v; return nil }},
		{"vault", "OBSIDIAN_VAULT", "", "Vault name as Obsidian lists it. When set, every CLI call starts with `vault=<name>`; otherwise the CLI uses the active vault. Or several vaults, as `name=folder`: give the flag once per vault (in the variable, separate them with `;`); every tool then takes a `vault` argument (default the first) and `obsidian_list_vaults` lists them.",
			func(c *Config, v string) error {
				if strings.ContainsAny(v, "\x00\n\r") {
					return fmt.Errorf("must be a vault name on one line")
				}
				if !strings.Contains(v, "=") {
					if strings.Contains(v, ";") {
						return fmt.Errorf("several vaults are given as name=folder, each; e.g. --vault Work=~/Vaults/Work --vault Home=~/Vaults/Home")
					}
					c.Vault = v
					return nil
				}
				return c.setVaults(v)
			}},
		{"timeout", "OBSIDIAN_MCP_TIMEOUT", "30s", "Timeout of each CLI call, as a Go duration (`30s`, `2m`) or a number of seconds. On expiry the CLI's whole process group is stopped and the call fails with TIMEOUT.",
			func(c *Config, v string) error {
				d, err := settings.Duration(v)
				c.Timeout = d
				return err
			}},
		{"command-timeouts", "OBSIDIAN_MCP_COMMAND_TIMEOUTS", "", "Per-command timeout overrides, e.g. `move=2m,rename=2m` for vaults where link updates are slow.",
			func(c *Config, v string) error {
				c.CommandTimeouts = map[string]time.Duration{}
				for _, pair := range strings.Split(v, ",") {
					if pair = strings.TrimSpace(pair); pair == "" {
						continue
					}
					cmd, val, ok := strings.Cut(pair, "=")
					if !ok || strings.TrimSpace(cmd) == "" {
						return fmt.Errorf("%q is not command=duration (e.g. move=2m)", pair)
					}
					d, err := settings.Duration(strings.TrimSpace(val))
					if err != nil {
						return fmt.Errorf("%s: %w", cmd, err)
					}
					c.CommandTimeouts[strings.TrimSpace(cmd)] = d
				}
				return nil
			}},
		{"log-level", "OBSIDIAN_MCP_LOG_LEVEL", "info", "Log level: `debug`, `info`, `warn` or `error`. Logs go to stderr only (coloured on a terminal); debug adds every CLI invocation (note bodies redacted).",
			func(c *Config, v string) (err error) {
				c.LogLevel, err = settings.LogLevel(v)
				return err
			}},
		{"read-only", "OBSIDIAN_MCP_READ_ONLY", "false", "Serve only the tools that change nothing: the write tools are left out of tools/list, and a call to one is refused with PERMISSION_DENIED naming this setting. `--read-only`, or `true`/`false`.",
			func(c *Config, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.ReadOnly = b
				return nil
			}},
		{"read-only-vaults", "OBSIDIAN_MCP_READ_ONLY_VAULTS", "", "Of several vaults (`--vault name=folder`), those that take no writes, comma-separated, e.g. `Archive`: their write tools refuse with PERMISSION_DENIED naming this setting.",
			func(c *Config, v string) error {
				c.ReadOnlyVaults = nil
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n != "" {
						c.ReadOnlyVaults = append(c.ReadOnlyVaults, n)
					}
				}
				return nil
			}},
		{"index-dir", "OBSIDIAN_MCP_INDEX_DIR", "", "Where the search index is kept between runs, so that a restart reads again only the notes that changed: a folder (each vault gets its own inside it), or `off` to keep it in memory only. Empty: the user's cache folder (`~/.cache/obsidian-mcp/index` on Linux), never the vault. It is checked against every note on start and rebuilt when damaged, so deleting it is always safe.",
			func(c *Config, v string) error {
				switch v = strings.TrimSpace(v); {
				case v == "" || strings.EqualFold(v, "off"):
					c.IndexDir = strings.ToLower(v)
					return nil
				case strings.ContainsAny(v, "\x00\n\r"):
					return fmt.Errorf("must be a folder path on one line, or off")
				}
				if rest, ok := strings.CutPrefix(v, "~/"); ok {
					home, err := os.UserHomeDir()
					if err != nil {
						return fmt.Errorf("cannot expand ~: %v", err)
					}
					v = filepath.Join(home, rest)
				}
				abs, err := filepath.Abs(v)
				c.IndexDir = abs
				return err
			}},
		{"search-patience", "OBSIDIAN_MCP_SEARCH_PATIENCE", "10s", "How long a search waits for the vault's first index build (about 2 s per 10,000 notes; a restart reads the saved index instead) before it answers from the notes indexed so far, marked `partial`. Meanwhile a client that asked for progress gets `notifications/progress`.",
			func(c *Config, v string) error {
				d, err := settings.Duration(v)
				c.SearchPatience = d
				return err
			}},
		{"commands", "OBSIDIAN_MCP_COMMANDS", "false", "Serve the Obsidian app's commands: `obsidian_list_commands` and `obsidian_run_command` (marked destructive; refused while a folder policy is set, since a command acts on the whole vault). Off by default. `--commands`, or `true`/`false`.",
			func(c *Config, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.Commands = b
				return nil
			}},
		{"tools", "OBSIDIAN_MCP_TOOLS", "all", "Comma-separated toolsets to serve, so that a client that needs fewer tools pays for no other tool's description: `read` (read and find notes), `graph` (links, tags, properties across the vault), `edit` (change existing notes), `files` (create, delete, move, rename, open, templates), `daily` (daily and periodic notes), `tasks`, `canvas`, `bases`, `commands` (also needs `--commands`); or `all`. E.g. `read,graph` for a reading assistant.",
			func(c *Config, v string) error {
				var names []string
				for _, n := range strings.Split(v, ",") {
					if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
						names = append(names, n)
					}
				}
				if len(names) == 0 {
					return fmt.Errorf("names no toolset: use all, or some of %s", strings.Join(tools.ToolsetNames(), ", "))
				}
				if err := tools.CheckToolsets(names); err != nil {
					return err
				}
				c.Tools = names
				return nil
			}},
		{"output-schemas", "OBSIDIAN_MCP_OUTPUT_SCHEMAS", "false", "Also send each tool's output schema in tools/list (about 26 KB more), for clients that validate structured results or generate code from them. Results carry the same structured content either way; the tool descriptions say what each returns. `--output-schemas`, or `true`/`false`.",
			func(c *Config, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.OutputSchemas = b
				return nil
			}},
		pathsOption("read-paths", "OBSIDIAN_MCP_READ_PATHS", "Comma-separated globs of the only notes the server may see, e.g. `Projects/**,Inbox/**` (`*` within a name, `**` across folders, `{a,b}`, `[a-z]`; vault-relative; a folder covers everything in it; letter case ignored). Every other note is hidden: left out of search, listings, tags, properties, links and resources, and refused by path with PERMISSION_DENIED naming the rule. Default: the whole vault.",
			func(p *policy.Policy, r []policy.Rule) { p.Read = r }),
		pathsOption("write-paths", "OBSIDIAN_MCP_WRITE_PATHS", "Comma-separated globs of the only notes the server may create, change, move or delete, e.g. `Inbox/**,Daily/**`; other notes stay readable. A write elsewhere is refused with PERMISSION_DENIED naming the rule. Default: every note it may see.",
			func(p *policy.Policy, r []policy.Rule) { p.Write = r }),
		pathsOption("deny-paths", "OBSIDIAN_MCP_DENY_PATHS", "Comma-separated globs of notes hidden from the server, e.g. `Private/**,*.secret.md`: never read or changed, and left out of every answer as if they did not exist. A `.mcpignore` file in the vault folder (.gitignore syntax, read again when it changes) hides more.",
			func(p *policy.Policy, r []policy.Rule) { p.Deny = r }),
		{flag: "listen", env: "OBSIDIAN_MCP_LISTEN", def: "127.0.0.1:3000",
			help: "`serve`: the address to listen on, host:port. Only loopback (127.0.0.1, ::1, localhost) unless an API key is set.",
			set: func(c *Config, v string) error {
				host, port, err := net.SplitHostPort(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be host:port, e.g. 127.0.0.1:3000")
				}
				if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
					return fmt.Errorf("the port must be a number from 0 to 65535")
				}
				c.HTTP.Listen = net.JoinHostPort(host, port)
				return nil
			}},
		{flag: "api-key-file", env: "OBSIDIAN_MCP_API_KEY_FILE",
			help: "`serve`: a file holding the API key (its first line; at least 16 characters, no spaces: `openssl rand -hex 32` makes one). With a key, every request must carry it as `Authorization: Bearer <key>`, `X-Api-Key` or `X-ObsiScripta-Api-Key`, and the server may listen beyond loopback.",
			set: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				key, err := httpapi.ReadKeyFile(v)
				c.HTTP.Key = key
				return err
			}},
		{env: "OBSIDIAN_MCP_API_KEY",
			help: "`serve`: the API key itself, as an environment variable (never a flag: a command line is visible to every user of the machine). `--api-key-file` wins.",
			set: func(c *Config, v string) error {
				if c.HTTP.Key.Set() || v == "" {
					return nil
				}
				key, err := httpapi.NewKey(v)
				c.HTTP.Key = key
				return err
			}},
		{flag: "allowed-hosts", env: "OBSIDIAN_MCP_ALLOWED_HOSTS",
			help: "`serve`: comma-separated host names accepted in the `Host` header besides localhost, 127.0.0.1 and ::1 (DNS-rebinding protection), e.g. `notes.lan`.",
			set: func(c *Config, v string) error {
				c.HTTP.AllowedHosts = nil
				for _, h := range strings.Split(v, ",") {
					if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
						if strings.ContainsAny(h, "/ ") {
							return fmt.Errorf("%q is not a host name", h)
						}
						c.HTTP.AllowedHosts = append(c.HTTP.AllowedHosts, h)
					}
				}
				return nil
			}},
		{flag: "cors-origin", env: "OBSIDIAN_MCP_CORS_ORIGINS",
			help: "`serve`: comma-separated browser origins allowed to call the server besides loopback ones (`http://localhost:8080`), e.g. `https://chat.example`; a request from any other `Origin` is refused. `*` allows every origin, as the Bridge Protocol v1 contract does: any web page you visit could then use your notes, so use it only with an API key.",
			set: func(c *Config, v string) error {
				c.HTTP.CORSOrigins = nil
				for _, o := range strings.Split(v, ",") {
					if o = strings.TrimSpace(o); o == "" {
						continue
					}
					if o != "*" {
						u, err := url.Parse(o)
						if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" && u.Path != "/" {
							return fmt.Errorf("%q is not an origin (scheme://host[:port])", o)
						}
						o = strings.ToLower(u.Scheme + "://" + u.Host)
					}
					c.HTTP.CORSOrigins = append(c.HTTP.CORSOrigins, o)
				}
				return nil
			}},
		{flag: "url-file", env: "OBSIDIAN_MCP_URL_FILE",
			help: "`serve`: a file to write the server's URL to once it listens (removed when it stops), so that `obsidian-mcp bridge --url-file` finds it again after a restart on another port (`--listen 127.0.0.1:0` picks a free one).",
			set: func(c *Config, v string) error {
				if v = strings.TrimSpace(v); v != "" && strings.ContainsAny(v, "\x00\n\r") {
					return fmt.Errorf("must be a file path on one line")
				}
				c.HTTP.URLFile = strings.TrimSpace(v)
				return nil
			}},
		{"tool-errors", "OBSIDIAN_MCP_TOOL_ERRORS", ToolErrorsProtocol, "How failed tool calls are answered: `protocol` (JSON-RPC error objects with our code and `data`) or `result` (`isError` results carrying the same fields, for clients that show the model only results).",
			func(c *Config, v string) error {
				if v != ToolErrorsProtocol && v != ToolErrorsResult {
					return fmt.Errorf("must be %q or %q", ToolErrorsProtocol, ToolErrorsResult)
				}
				c.ToolErrors = v
				return nil
			}},
	}
}

// pathsOption is a folder policy option: a list of globs that set puts
// in the policy. The rules carry the name of the setting that gave them.
func pathsOption(flag, env, help string, set func(*policy.Policy, []policy.Rule)) option {
	return option{flag, env, "", help, func(c *Config, v string) error {
		rules, err := policy.ParseList(c.from, v)
		set(c.policy(), rules)
		return err
	}}
}

// Specs are the server's settings (serve's included), for the README and
// the MCPB manifest's checks.
func Specs() []settings.Spec { return specsOf(options()) }

// folderPath is v as an absolute folder path, a leading ~/ expanded, or
// why it is none.
func folderPath(v string) (string, error) {
	if strings.ContainsAny(v, "\x00\n\r") {
		return "", fmt.Errorf("must be a folder path on one line")
	}
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %v", err)
		}
		v = filepath.Join(home, rest)
	}
	abs, err := filepath.Abs(v)
	if err != nil {
		return "", err
	}
	if !isDir(abs) {
		return "", fmt.Errorf("is not an existing folder")
	}
	return abs, nil
}
