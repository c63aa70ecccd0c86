package vaultserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// Rows are the server's settings: its flags and environment variables, as
// the stdio server and every command built on it (serve, a gateway's vault
// namespace) read them.
func Rows() []settings.Row[Config] {
	return []settings.Row[Config]{
		{Flag: "backend", Env: "OBSIDIAN_MCP_BACKEND", Default: string(backend.Auto), Help: "Which backend serves the tools: `auto` uses the Obsidian app through its CLI while it answers, and the vault folder directly when the app is closed or not installed (if the folder is known: `--vault-path`, or learned from the app); `cli` only the app; `native` only the folder (needs `--vault-path`; works without Obsidian).",
			Set: func(c *Config, v string) error {
				switch m := backend.Mode(strings.ToLower(strings.TrimSpace(v))); m {
				case backend.Auto, backend.CLI, backend.Native:
					c.Backend = m
					return nil
				}
				return fmt.Errorf("must be auto, cli or native")
			}},
		{Flag: "vault-path", Env: "OBSIDIAN_VAULT_PATH", Default: "", Shown: func(c *Config) string { return c.VaultPath }, Help: "The vault's folder (the one holding `.obsidian/`), for the native backend. A leading `~/` means your home folder.",
			Set: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				abs, err := folderPath(v)
				c.VaultPath = abs
				return err
			}},
		{Flag: "obsidian-bin", Env: "OBSIDIAN_BIN", Default: "", Help: "Path of the Obsidian CLI. By default `obsidian` (on Windows `Obsidian.com`, never `Obsidian.exe`) is looked up on PATH, then where Obsidian installs it: macOS `/usr/local/bin/obsidian` and `Obsidian.app/Contents/MacOS/obsidian-cli`; Linux `~/.local/bin/obsidian`; Windows `%LOCALAPPDATA%\\Programs\\Obsidian` and `Program Files\\Obsidian`. `obsidian-mcp doctor` shows what was found.",
			Set: func(c *Config, v string) error { c.ObsidianBin = v; return nil }},
		{Flag: "vault", Env: "OBSIDIAN_VAULT", Default: "", Repeat: true, Help: "Vault name as Obsidian lists it. When set, every CLI call starts with `vault=<name>`; otherwise the CLI uses the active vault. Or several vaults, as `name=folder`: give the flag once per vault (in the variable, separate them with `;`); every tool then takes a `vault` argument (default the first) and `obsidian_list_vaults` lists them.",
			Set: func(c *Config, v string) error {
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
		{Flag: "timeout", Env: "OBSIDIAN_MCP_TIMEOUT", Default: "30s", Help: "Timeout of each CLI call, as a Go duration (`30s`, `2m`) or a number of seconds. On expiry the CLI's whole process group is stopped and the call fails with TIMEOUT.",
			Set: func(c *Config, v string) error {
				d, err := settings.Duration(v)
				c.Timeout = d
				return err
			}},
		{Flag: "command-timeouts", Env: "OBSIDIAN_MCP_COMMAND_TIMEOUTS", Default: "", Help: "Per-command timeout overrides, e.g. `move=2m,rename=2m` for vaults where link updates are slow.",
			Set: func(c *Config, v string) error {
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
		{Flag: "log-level", Env: "OBSIDIAN_MCP_LOG_LEVEL", Default: "info", Help: "Log level: `debug`, `info`, `warn` or `error`. Logs go to stderr only (coloured on a terminal); debug adds every CLI invocation (note bodies redacted).",
			Set: func(c *Config, v string) (err error) {
				c.LogLevel, err = settings.LogLevel(v)
				return err
			}},
		{Flag: "read-only", Env: "OBSIDIAN_MCP_READ_ONLY", Default: "false", Bool: true, Help: "Serve only the tools that change nothing: the write tools are left out of tools/list, and a call to one is refused with PERMISSION_DENIED naming this setting. `--read-only`, or `true`/`false`.",
			Set: func(c *Config, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.ReadOnly = b
				return nil
			}},
		{Flag: "read-only-vaults", Env: "OBSIDIAN_MCP_READ_ONLY_VAULTS", Default: "", Help: "Of several vaults (`--vault name=folder`), those that take no writes, comma-separated, e.g. `Archive`: their write tools refuse with PERMISSION_DENIED naming this setting.",
			Set: func(c *Config, v string) error {
				c.ReadOnlyVaults = nil
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n != "" {
						c.ReadOnlyVaults = append(c.ReadOnlyVaults, n)
					}
				}
				return nil
			}},
		{Flag: "index-dir", Env: "OBSIDIAN_MCP_INDEX_DIR", Default: "", Help: "Where the search index is kept between runs, so that a restart reads again only the notes that changed: a folder (each vault gets its own inside it), or `off` to keep it in memory only. Empty: the user's cache folder (`~/.cache/obsidian-mcp/index` on Linux), never the vault. It is checked against every note on start and rebuilt when damaged, so deleting it is always safe.",
			Set: func(c *Config, v string) (err error) {
				c.IndexDir, err = folderOrOff(v)
				return err
			}},
		{Flag: "changes-dir", Env: "OBSIDIAN_MCP_CHANGES_DIR", Default: "", Help: "Where the change record is kept: every change the tools make, with each file's bytes before it, so that `obsidian_history` shows what was changed. A folder (each vault gets its own inside it, readable by you alone), or `off` to keep none. Empty: the user's state folder (`~/.local/state/obsidian-mcp/changes` on Linux), never the vault.",
			Set: func(c *Config, v string) (err error) {
				c.ChangesDir, err = folderOrOff(v)
				return err
			}},
		{Flag: "changes-days", Env: "OBSIDIAN_MCP_CHANGES_DAYS", Default: "30", Help: "How many days the change record keeps a change; older ones are forgotten first.",
			Set: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 {
					return fmt.Errorf("must be a whole number of days, at least 1")
				}
				c.ChangesLimits.MaxAge = time.Duration(n) * 24 * time.Hour
				return nil
			}},
		{Flag: "changes-max-mb", Env: "OBSIDIAN_MCP_CHANGES_MAX_MB", Default: "500", Help: "How large the change record of one vault may grow, in megabytes; past it the oldest changes are forgotten.",
			Set: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 {
					return fmt.Errorf("must be a whole number of megabytes, at least 1")
				}
				c.ChangesLimits.MaxBytes = int64(n) << 20
				return nil
			}},
		{Flag: "search-patience", Env: "OBSIDIAN_MCP_SEARCH_PATIENCE", Default: "10s", Help: "How long a search waits for the vault's first index build (docs/benchmarks.md times it; a restart reads the saved index instead) before it answers from the notes indexed so far, marked `partial`. Meanwhile a client that asked for progress gets `notifications/progress`.",
			Set: func(c *Config, v string) error {
				d, err := settings.Duration(v)
				c.SearchPatience = d
				return err
			}},
		{Flag: "max-batch", Env: "OBSIDIAN_MCP_MAX_BATCH", Default: "100", Help: "The most messages one JSON-RPC batch may hold (only revision 2025-03-26 has batches); a larger one is refused whole with -32600. A batch's answers together are bounded too (16 MiB on stdio and `serve`), past which the batch is answered with one error.",
			Set: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 {
					return fmt.Errorf("must be a whole number of at least 1")
				}
				c.MaxBatch = n
				return nil
			}},
		{Flag: "commands", Env: "OBSIDIAN_MCP_COMMANDS", Default: "false", Bool: true, Help: "Serve the Obsidian app's commands: `obsidian_list_commands` and `obsidian_run_command` (marked destructive; refused while a folder policy is set, since a command acts on the whole vault). Off by default. `--commands`, or `true`/`false`.",
			Set: func(c *Config, v string) error {
				b, err := strconv.ParseBool(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("must be true or false")
				}
				c.Commands = b
				return nil
			}},
		{Flag: "tools", Env: "OBSIDIAN_MCP_TOOLS", Default: "all", Help: "Comma-separated toolsets to serve, so that a client that needs fewer tools pays for no other tool's description: `read` (read and find notes), `graph` (links, tags, properties across the vault), `edit` (change existing notes), `files` (create, delete, move, rename, open, templates, folders), `daily` (daily and periodic notes), `tasks`, `canvas`, `bases`, `commands` (also needs `--commands`); or `all`. E.g. `read,graph` for a reading assistant.",
			Set: func(c *Config, v string) error {
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
		{Flag: "output-schemas", Env: "OBSIDIAN_MCP_OUTPUT_SCHEMAS", Default: "false", Bool: true, Help: "Also send each tool's output schema in tools/list (what that adds is measured under Tools), for clients that validate structured results or generate code from them. Results carry the same structured content either way; the tool descriptions say what each returns. `--output-schemas`, or `true`/`false`.",
			Set: func(c *Config, v string) error {
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
		{Flag: "tool-errors", Env: "OBSIDIAN_MCP_TOOL_ERRORS", Default: ToolErrorsProtocol, Help: "How failed tool calls are answered: `protocol` (JSON-RPC error objects with our code and `data`) or `result` (`isError` results carrying the same fields, for clients that show the model only results).",
			Set: func(c *Config, v string) error {
				if v != ToolErrorsProtocol && v != ToolErrorsResult {
					return fmt.Errorf("must be %q or %q", ToolErrorsProtocol, ToolErrorsResult)
				}
				c.ToolErrors = v
				return nil
			}},
	}
}

// pathsOption is a folder policy setting: a list of globs that set puts
// in the policy. The rules carry the name of the setting that gave them.
func pathsOption(flag, env, help string, set func(*policy.Policy, []policy.Rule)) settings.Row[Config] {
	return settings.Row[Config]{Flag: flag, Env: env, Help: help, SetFrom: func(c *Config, v, from string) error {
		rules, err := policy.ParseList(from, v)
		set(c.policy(), rules)
		return err
	}}
}

// Specs are the server's settings, for the README and the MCPB
// manifest's checks.
func Specs() []settings.Spec { return settings.Specs(Rows()) }

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

// folderOrOff reads a folder setting: "" (the default place), "off", or a
// folder made absolute, ~/ expanded.
func folderOrOff(v string) (string, error) {
	switch v = strings.TrimSpace(v); {
	case v == "" || strings.EqualFold(v, "off"):
		return strings.ToLower(v), nil
	case strings.ContainsAny(v, "\x00\n\r"):
		return "", fmt.Errorf("must be a folder path on one line, or off")
	}
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %v", err)
		}
		v = filepath.Join(home, rest)
	}
	return filepath.Abs(v)
}
