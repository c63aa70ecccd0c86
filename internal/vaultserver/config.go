package vaultserver

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/changes"
	"github.com/obsidian-mcp/obsidian-mcp/internal/settings"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// Config is the server's configuration. Each setting comes from a flag or
// its environment variable; a flag wins.
type Config struct {
	Backend     backend.Mode
	VaultPath   string
	ObsidianBin string
	Vault       string
	// Vaults are the vaults of a server of several (--vault name=folder,
	// given more than once); the first is also Vault and VaultPath.
	Vaults          []NamedVault
	Timeout         time.Duration
	CommandTimeouts map[string]time.Duration
	LogLevel        slog.Level
	ToolErrors      string // "protocol" or "result"
	// ReadOnly serves only the tools that change nothing.
	ReadOnly bool
	// ReadOnlyVaults are the vaults, of several, that take no writes.
	ReadOnlyVaults []string
	// Tools are the toolsets served (--tools; nil or "all": every one).
	Tools []string
	// OutputSchemas sends each tool's output schema in tools/list.
	OutputSchemas bool
	// Commands serves the app's commands (the commands toolset).
	Commands bool
	// IndexDir is where the search index is kept between runs: "" the
	// user's cache folder, "off" nowhere, or a folder.
	IndexDir string
	// ChangesDir is where the change record is kept: "" the user's state
	// folder, "off" nowhere, or a folder; ChangesLimits bound it.
	ChangesDir    string
	ChangesLimits changes.Limits
	// MaxBatch bounds the messages of one JSON-RPC batch.
	MaxBatch int
	// SearchPatience is how long a search waits for a first index build
	// before answering from the part indexed.
	SearchPatience time.Duration
	// Policy is the folder policy of --read-paths, --write-paths and
	// --deny-paths; the vault's .mcpignore adds to it.
	Policy      *policy.Policy
	ShowVersion bool
	// Settings says where each option's value came from, in option order.
	Settings []settings.Setting
	// Ignored lists environment variables holding unsubstituted placeholders.
	Ignored []string
	// Recheck is how long auto mode serves from the folder after the app
	// failed to answer before trying the app again (not a flag).
	Recheck time.Duration
	// PromptsEvery is how often the vault is searched for prompt notes;
	// 0 picks by backend (not a flag: tests shorten it).
	PromptsEvery time.Duration
	// IndexBuildHook, when set, runs as a search index build begins, and
	// what it returns as the build ends: the program's process policy
	// (the collector's pace), which a library does not set (not a flag).
	IndexBuildHook func(vaultindex.Build) (end func())
	// Started, when set, runs once start-up is over (CoreOptions.Started):
	// the program's process policy again (not a flag).
	Started func()
}

// defaultRecheck spares a CLI round trip per call while the app is closed.
const defaultRecheck = 5 * time.Second

// Tool error modes.
const (
	ToolErrorsProtocol = "protocol"
	ToolErrorsResult   = "result"
)

// policy is the configuration's folder policy, made on first use.
func (c *Config) policy() *policy.Policy {
	if c.Policy == nil {
		c.Policy = &policy.Policy{}
	}
	return c.Policy
}

// NewConfig is a configuration before any setting is applied.
func NewConfig() Config { return Config{Recheck: defaultRecheck} }

// ParseConfig reads the stdio server's flags from args and, for flags not
// given, environment variables through getenv. It returns flag.ErrHelp for
// --help. Every invalid setting is reported, joined, with the best
// configuration it could make of the rest.
func ParseConfig(args []string, getenv func(string) string) (Config, error) {
	c := NewConfig()
	p, err := settings.Parse(Rows(), &c, args, getenv, &c.ShowVersion, "--help")
	if errors.Is(err, flag.ErrHelp) {
		return c, err
	}
	c.Ignored, c.Settings = p.Ignored, p.Settings
	return c, errors.Join(err, c.Finish(FlagNames))
}

// ConfigFrom is the configuration given as values by flag (a gateway's
// vault namespace, from its YAML), each named by key(flag) in errors, with
// what getenv gives for the rest: the settings are read and checked
// exactly as the command line's.
func ConfigFrom(given map[string]string, key func(flag string) string, getenv func(string) string) (Config, error) {
	c := NewConfig()
	rows := Rows()
	set, _, err := settings.Apply(rows, settings.Given(rows, given, key, getenv), &c)
	c.Settings = set
	return c, errors.Join(err, c.Finish(Names{Of: key, SetFolder: key("vault-path")}))
}

// Names say how errors call the settings: the command line's, or the
// keys of a file.
type Names struct {
	// Of is a setting's name, by flag.
	Of func(flag string) string
	// SetFolder says how to give the vault folder.
	SetFolder string
}

// FlagNames are the command line's names.
var FlagNames = Names{Of: func(flag string) string { return "--" + flag }, SetFolder: "--vault-path or OBSIDIAN_VAULT_PATH (see --help)"}

// Finish checks what no single setting can say, naming settings by names.
func (c *Config) Finish(names Names) error {
	var errs []error
	for _, n := range c.ReadOnlyVaults {
		if !slices.ContainsFunc(c.Vaults, func(v NamedVault) bool { return strings.EqualFold(v.Name, n) }) {
			errs = append(errs, fmt.Errorf("%s names %q, which is no vault of %s name=folder", names.Of("read-only-vaults"), n, names.Of("vault")))
		}
	}
	// A folder that was given but is invalid has been reported already.
	if c.Backend == backend.Native && c.setting("vault-path").Value == "" && len(c.Vaults) == 0 {
		errs = append(errs, fmt.Errorf("%s native needs the vault folder: set %s", names.Of("backend"), names.SetFolder))
	}
	return errors.Join(errs...)
}

// setting returns the Setting of the option named flag.
func (c Config) setting(flag string) settings.Setting {
	for _, s := range c.Settings {
		if s.Flag == flag {
			return s
		}
	}
	return settings.Setting{Flag: flag, Source: "default"}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Usage is `obsidian-mcp --help`: the stdio server, its flags, and the
// other commands.
func Usage() string {
	var b strings.Builder
	b.WriteString(`obsidian-mcp: a Model Context Protocol server for Obsidian vaults, over stdio.

It speaks newline-delimited JSON-RPC 2.0 on stdin/stdout. It drives the official
Obsidian CLI (Obsidian 1.12 or later, with Settings → General → Command line
interface enabled) and, when the app is closed or absent, works on the vault
folder directly (--vault-path). Logs go to stderr.

Usage:
  obsidian-mcp [flags]           serve MCP over stdio
  obsidian-mcp serve [flags]     the same tools over HTTP: MCP at /mcp, the Bridge Protocol v1
                                 at /bridge/v1, the envelope API at /v1/mcp
  obsidian-mcp bridge [flags]    serve over stdio the tools of an HTTP server (obsidian-mcp serve,
                                 the ObsiScripta Bridge plugin)
  obsidian-mcp gateway [flags]   many vaults and stdio MCP servers behind one HTTP endpoint
  obsidian-mcp doctor [flags]    check the setup and say how to fix it
  obsidian-mcp history …         what the tools changed in a vault: list, show ID
  obsidian-mcp oauth …           the approvals of serve --oauth: passphrase, grants, revoke
Each command has its own --help.

Flags (each may also be set by its environment variable; a flag wins):
`)
	settings.WriteHelp(&b, settings.Specs(Rows()))
	return b.String()
}

// apart refuses vaults whose folders are one and the same or lie one inside
// another (followed through symlinks): the outer vault would reach the
// inner one's notes past the inner one's rules (--read-only-vaults, its
// .mcpignore), and a note would have two names.
func apart(vaults []NamedVault) error {
	real := make([]string, len(vaults))
	for i, v := range vaults {
		real[i] = v.Path
		if r, err := filepath.EvalSymlinks(v.Path); err == nil {
			real[i] = r
		}
	}
	for i := range vaults {
		for j := range vaults {
			if i == j {
				continue
			}
			rel, err := filepath.Rel(real[i], real[j])
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
				continue
			}
			if rel == "." {
				if i < j {
					return fmt.Errorf("vaults %s and %s are the same folder (%s): give each folder once", vaults[i].Name, vaults[j].Name, real[i])
				}
				continue
			}
			return fmt.Errorf("vault %s (%s) lies inside vault %s (%s): %s would reach its notes past its own rules (read-only, .mcpignore); give folders that do not contain each other, or serve the outer one alone and hide the inner folder with --deny-paths %s/**",
				vaults[j].Name, vaults[j].Path, vaults[i].Name, vaults[i].Path, vaults[i].Name, filepath.ToSlash(rel))
		}
	}
	return nil
}

// NamedVault is one vault of a server of several.
type NamedVault struct {
	Name, Path string
}

// setVaults reads --vault name=folder;name=folder: the first is the
// default vault, the one --vault-path may also name.
func (c *Config) setVaults(v string) error {
	seen := map[string]bool{}
	for _, entry := range strings.Split(v, ";") {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		name, folder, ok := strings.Cut(entry, "=")
		name, folder = strings.TrimSpace(name), strings.TrimSpace(folder)
		if !ok || name == "" || folder == "" {
			return fmt.Errorf("%q is not name=folder; give every vault as name=folder, e.g. Work=~/Vaults/Work", entry)
		}
		if seen[strings.ToLower(name)] {
			return fmt.Errorf("the vault name %q is given twice", name)
		}
		seen[strings.ToLower(name)] = true
		abs, err := folderPath(folder)
		if err != nil {
			return fmt.Errorf("vault %s: %q %v", name, folder, err)
		}
		c.Vaults = append(c.Vaults, NamedVault{Name: name, Path: abs})
	}
	if len(c.Vaults) == 0 {
		return fmt.Errorf("names no vault")
	}
	if err := apart(c.Vaults); err != nil {
		return err
	}
	if c.VaultPath != "" && c.VaultPath != c.Vaults[0].Path {
		return fmt.Errorf("--vault-path names another folder than the first vault's (%s): give the vaults with --vault name=folder alone", c.Vaults[0].Path)
	}
	c.Vault, c.VaultPath = c.Vaults[0].Name, c.Vaults[0].Path
	return nil
}
