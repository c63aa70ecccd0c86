package vaultserver

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	doctorpkg "github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

// probeTimeout bounds each CLI call doctor makes: a frozen app should be
// reported in seconds, not after the server's 30 s.
const probeTimeout = 10 * time.Second

// minObsidian is the first Obsidian release with the CLI.
var minObsidian = [2]int{1, 12}

// Machine is what doctor looks at besides the configuration; tests describe
// another machine with it.
type Machine struct {
	Finder     obsidiancli.Finder // where the CLI is looked for
	Executable string             // this program's path, for the sample config
	GOOS       string             // "" means runtime.GOOS
}

// Doctor checks that the server can work with cfg (with cfgErr, what was
// wrong in the settings) on this machine. It reports one line per check,
// ✓ or ✗ with the fix, then the effective configuration and a Claude
// Desktop entry to paste. It returns 0 when the server could serve tools,
// 1 when it could not. The sections of the command that runs the server
// (serve's HTTP) follow the server's checks.
func Doctor(ctx context.Context, cfg Config, cfgErr error, r *doctorpkg.Report, version string, m Machine, sections ...func(*doctorpkg.Report)) int {
	d := newDoctor(r, m)
	d.ok("obsidian-mcp %s (%s/%s, %s) at %s", version, runtime.GOOS, runtime.GOARCH, runtime.Version(), cmp.Or(m.Executable, "(path unknown)"))
	configOK := d.config(cfg, cfgErr)
	sr := d.server(ctx, cfg, configOK)
	first := d.flush(sr.ready)
	for _, section := range sections {
		section(r)
	}
	d.settings(cfg)
	if !sr.ready {
		// An entry for a setup that does not work would only move the
		// failure into the MCP host, where it is harder to read.
		fmt.Fprintf(d.Out, "\nClaude Desktop: no entry to paste until the setup is ready. Fix first: %s\n\n", first)
		r.Fail("not ready: the server could not serve tools with this setup", "fix the ✗ lines above, then run obsidian-mcp doctor again")
		return 1
	}
	d.sampleConfig(cfg, sr.folder.path)
	r.OK("ready: %s", sr.how)
	return 0
}

// Check reports whether a server with cfg, whose settings are valid, could
// serve tools on this machine (the app, the vault, the folder, the
// policy), and if so how; the gateway's doctor checks a vault namespace so.
func Check(ctx context.Context, cfg Config, r *doctorpkg.Report, m Machine) (ready bool, how string) {
	d := newDoctor(r, m)
	sr := d.server(ctx, cfg, true)
	d.flush(sr.ready)
	return sr.ready, sr.how
}

func newDoctor(r *doctorpkg.Report, m Machine) *doctor {
	if m.GOOS == "" {
		m.GOOS = runtime.GOOS
	}
	return &doctor{Report: r, m: m}
}

// serverReport is whether a server with some settings could serve tools,
// and how.
type serverReport struct {
	ready  bool
	how    string // when ready: who serves the tools
	folder folderState
}

// server checks what a server with cfg would work with: the app, the
// vault, the folder and the folder policy.
func (d *doctor) server(ctx context.Context, cfg Config, configOK bool) serverReport {
	app := d.app(ctx, cfg)
	folder := d.vault(ctx, cfg, &app)
	nativeOK := d.native(cfg, app, folder)
	policyOK := d.policy(cfg, folder.path)

	appOK := app.reachable && app.vaultOK
	var ready bool
	switch cfg.Backend {
	case backend.Native:
		ready = configOK && nativeOK
	case backend.CLI:
		ready = configOK && appOK
	default:
		// The router falls back to the folder only when the app cannot be
		// reached at all; an app that answers wrongly is not bypassed.
		ready = configOK && (appOK || (app.fallsBack && nativeOK && cfg.VaultPath != ""))
	}
	r := serverReport{ready: ready && !folder.mismatch && policyOK, folder: folder}
	switch {
	case appOK && nativeOK && cfg.Backend == backend.Auto:
		r.how = "tools are served by the Obsidian app, and from the vault folder while it is closed (backend auto)"
	case appOK:
		r.how = fmt.Sprintf("tools are served by the Obsidian app (backend %s)", cfg.Backend)
	default:
		r.how = fmt.Sprintf("tools are served from the vault folder %s (backend %s)", folder.path, cfg.Backend)
	}
	return r
}

// doctor is the server's doctor: its checks, reported through a Report
// once the verdict is known (flush), so that a run says one thing: a
// failure that does not stop the setup from working (the app, in auto mode,
// while the folder serves) is a warning when it ends ready.
type doctor struct {
	*doctorpkg.Report
	m     Machine
	lines []check
}

// check is one line of the report, held until flush.
type check struct {
	mark      rune // '✓', '✗', '!' or '–'
	text, fix string
	// soft marks a failure that only counts when the setup is not
	// ready: it is a warning otherwise.
	soft bool
}

func (d *doctor) ok(format string, args ...any) {
	d.lines = append(d.lines, check{mark: '✓', text: fmt.Sprintf(format, args...)})
}
func (d *doctor) fail(what, fix string) {
	d.lines = append(d.lines, check{mark: '✗', text: what, fix: fix})
}
func (d *doctor) warn(what, fix string) {
	d.lines = append(d.lines, check{mark: '!', text: what, fix: fix})
}
func (d *doctor) skip(format string, args ...any) {
	d.lines = append(d.lines, check{mark: '–', text: fmt.Sprintf(format, args...)})
}

// appFail is a failure of the app that auto mode gets around when the
// vault folder serves: a ✗ when the setup is not ready, a warning when it
// is, saying who serves meanwhile.
func (d *doctor) appFail(cfg Config, what, fix string) {
	if cfg.Backend != backend.Auto {
		d.fail(what, fix)
		return
	}
	d.lines = append(d.lines, check{mark: '✗', text: what, fix: fix, soft: true})
}

// flush writes the lines held, with ready as the verdict they lead to, and
// returns the fix of the first failure ("" when none).
func (d *doctor) flush(ready bool) (first string) {
	for _, c := range d.lines {
		switch {
		case c.mark == '✓':
			d.OK("%s", c.text)
		case c.mark == '–':
			d.Skip("%s", c.text)
		case c.mark == '!' || c.soft && ready:
			fix := c.fix
			if c.soft {
				fix = "meanwhile the vault folder serves the tools; to be served by the app: " + fix
			}
			d.Warn(c.text, fix)
		default:
			d.Fail(c.text, c.fix)
			if first == "" {
				first = c.text + " — " + c.fix
			}
		}
	}
	d.lines = nil
	return first
}

func (d *doctor) config(cfg Config, err error) bool {
	for _, note := range cfg.Ignored {
		d.skip("ignored %s", note)
	}
	if err == nil {
		d.ok("configuration is valid (backend %s)", cfg.Backend)
		return true
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		d.fail("configuration: "+line, "correct that flag or environment variable (obsidian-mcp --help lists them); the checks below use the rest")
	}
	return false
}

// appState is what the app said.
type appState struct {
	client    *obsidiancli.Client
	reachable bool // it answered `version`, 1.12 or later
	vaultOK   bool // and knows the vault
	fallsBack bool // auto mode would use the folder: no CLI, or the app is closed
}

// app finds the CLI and asks the app for its version.
func (d *doctor) app(ctx context.Context, cfg Config) appState {
	if cfg.Backend == backend.Native {
		d.skip("Obsidian CLI: not used (backend native)")
		return appState{}
	}
	found, _, err := d.m.Finder.Find(cfg.ObsidianBin)
	if err != nil {
		fix := "install Obsidian 1.12 or later, enable Settings → General → Command line interface, and restart Obsidian; or set OBSIDIAN_BIN (--obsidian-bin) to the CLI's full path"
		if cfg.ObsidianBin != "" {
			fix = "point OBSIDIAN_BIN (--obsidian-bin) at the CLI itself, or unset it to search the usual places"
			if d.m.GOOS == "windows" {
				fix = "point OBSIDIAN_BIN (--obsidian-bin) at Obsidian.com (not Obsidian.exe), or unset it to search the usual places"
			}
		}
		d.appFail(cfg, fmt.Sprintf("Obsidian CLI not found: %v", err), fix)
		d.skip("Obsidian app: not asked (no CLI)")
		return appState{fallsBack: true}
	}
	how := map[string]string{
		obsidiancli.FoundConfigured: "as configured",
		obsidiancli.FoundOnPath:     "on PATH",
		obsidiancli.FoundInstalled:  "at Obsidian's install location; found even with the minimal PATH MCP hosts give servers",
	}[found.How]
	d.ok("Obsidian CLI: %s (%s)", found.Path, how)

	timeout := min(cfg.Timeout, probeTimeout)
	if timeout <= 0 {
		timeout = probeTimeout
	}
	client := func(vault string) *obsidiancli.Client {
		return &obsidiancli.Client{Bin: found.Path, Vault: vault, Timeout: timeout,
			RetryDelay: 500 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	}
	// The version is asked without vault=, so an unknown vault name is
	// reported by the vault check rather than as an unreachable app.
	st := appState{client: client(cfg.Vault)}
	out, err := client("").Run(ctx, "version")
	if err != nil {
		e := errors.From(err)
		switch e.Kind {
		case errors.NotRunning:
			st.fallsBack = true
			d.appFail(cfg, "Obsidian app: not running (the CLI cannot reach it)", "start Obsidian and leave it running: the CLI does not start it. To work while it is closed, set OBSIDIAN_VAULT_PATH (--vault-path) to the vault folder")
		case errors.Timeout:
			d.appFail(cfg, fmt.Sprintf("Obsidian app: no answer within %v", timeout), "bring Obsidian to the front and close any open dialog (on macOS App Nap can freeze it in the background), then run doctor again")
		default:
			st.fallsBack = e.Kind == errors.CLINotFound // found but cannot be started
			d.appFail(cfg, "Obsidian app: "+e.Message, cmp.Or(e.Hint, "run `"+found.Path+" version` in a terminal to see what the CLI says"))
		}
		return st
	}
	ver := strings.TrimSpace(out)
	if !atLeast(ver, minObsidian) {
		d.appFail(cfg, fmt.Sprintf("Obsidian app: version %q, older than %d.%d", ver, minObsidian[0], minObsidian[1]), "update Obsidian (Settings → General → Check for updates); the CLI arrived in 1.12")
		return st
	}
	st.reachable = true
	d.ok("Obsidian app: answers, version %s", ver)
	return st
}

// folderState is the vault folder as doctor determined it: the configured
// one, else the one the app reported.
type folderState struct {
	path     string // "" when unknown
	mismatch bool   // the app's vault is not the configured folder
}

// vault checks the vault the CLI targets and the folder the native backend
// would use, and that they are the same vault. It sets app.vaultOK.
func (d *doctor) vault(ctx context.Context, cfg Config, app *appState) folderState {
	f := folderState{path: cfg.VaultPath}
	if app.reachable {
		name := "the active vault"
		if cfg.Vault != "" {
			name = fmt.Sprintf("vault %q", cfg.Vault)
		}
		out, err := app.client.Run(ctx, "vault", "info=path")
		p := strings.TrimSpace(out)
		e := errors.From(err)
		switch {
		case err != nil && e.Kind == errors.VaultNotFound:
			d.fail(fmt.Sprintf("Obsidian does not know %s", name), "set OBSIDIAN_VAULT (--vault) to a vault name Obsidian lists (`obsidian vaults`), or open that vault in Obsidian once")
		case err != nil:
			d.fail(fmt.Sprintf("cannot ask Obsidian for %s's folder: %s", name, e.Message), cmp.Or(e.Hint, "run `obsidian vault info=path` in a terminal to see what the CLI says"))
		case p == "":
			d.fail("Obsidian reported no folder for "+name, "open the vault in Obsidian")
		default:
			app.vaultOK = true
			note := ""
			if cfg.Vault == "" {
				note = " (the CLI acts on whichever vault is active; set OBSIDIAN_VAULT to pin one)"
			}
			d.ok("vault: %s is at %s%s", name, p, note)
			if cfg.VaultPath != "" && !sameFolder(cfg.VaultPath, p) {
				f.mismatch = true
				d.fail(fmt.Sprintf("OBSIDIAN_VAULT_PATH is %s, but Obsidian's %s is at %s: with the app closed the server would work on a different vault", cfg.VaultPath, name, p),
					"make them the same vault: set OBSIDIAN_VAULT_PATH to "+p+", or OBSIDIAN_VAULT to the name of the vault at "+cfg.VaultPath)
			}
			if f.path == "" {
				f.path = p
			}
		}
	}
	switch {
	case f.path == "" && cfg.Backend != backend.CLI && !app.reachable && cfg.setting("vault-path").Value != "":
		// Given, but refused by the configuration check above. The app is
		// spoken of only where it was asked (not with backend native).
		why := fmt.Sprintf("OBSIDIAN_VAULT_PATH %s cannot be used", cfg.setting("vault-path").Value)
		if cfg.Backend != backend.Native {
			why += ", and the app did not answer"
		}
		d.fail("vault folder: unknown ("+why+")",
			"correct OBSIDIAN_VAULT_PATH (--vault-path) as the configuration line above says: the vault folder, the one holding .obsidian/")
	case f.path == "" && cfg.Backend == backend.Native:
		d.fail("vault folder: none given (backend native serves the vault folder, and OBSIDIAN_VAULT_PATH is not set)", "set OBSIDIAN_VAULT_PATH (--vault-path) to the vault folder, the one holding .obsidian/")
	case f.path == "" && cfg.Backend != backend.CLI && !app.reachable:
		d.fail("vault folder: unknown (no OBSIDIAN_VAULT_PATH, and the app did not answer)", "set OBSIDIAN_VAULT_PATH (--vault-path) to the vault folder, the one holding .obsidian/")
	case f.path == "":
	case !isDir(filepath.Join(f.path, ".obsidian")):
		// Served either way; but a folder inside a vault gets notes
		// created and links resolved as if it were the whole vault.
		// Both are noted, not failed: the server serves them (doctor
		// said ✗ and then ready).
		if top := vaultAbove(f.path); top != "" {
			d.skip("vault folder %s is a folder inside the vault at %s (which holds .obsidian/): it is served on its own, so links resolve and notes are created as if it were the whole vault, and none of the vault's settings are read; unless that is meant, point OBSIDIAN_VAULT_PATH at %s (with --read-paths '%s/**' to keep the server to this folder)", f.path, top, top, partOf(top, f.path))
		} else {
			d.skip("vault folder %s has no .obsidian folder: it is served as a plain folder of notes (Obsidian has not opened it as a vault, so there are no daily-note, template or attachment settings to read); to serve a vault, point OBSIDIAN_VAULT_PATH at the folder that holds .obsidian/", f.path)
		}
	case !app.vaultOK: // so the folder is the configured one
		d.ok("vault folder: %s (set by %s)", f.path, cfg.setting("vault-path").Source)
	}
	return f
}

// native checks that the native backend could work on the folder: it can
// list the notes and write (a hidden probe file, which Obsidian ignores).
func (d *doctor) native(cfg Config, app appState, f folderState) bool {
	if cfg.Backend == backend.CLI {
		d.skip("native backend: not used (backend cli)")
		return false
	}
	if f.path == "" {
		if app.reachable {
			d.warn("native backend: no vault folder, so nothing works while Obsidian is closed", "set OBSIDIAN_VAULT_PATH (--vault-path) to the vault folder")
		}
		return false
	}
	v, err := native.Open(f.path, folderOptions(cfg, slog.New(slog.DiscardHandler))...)
	if err != nil {
		d.fail("native backend: "+errors.From(err).Message, permissionFix(d.m.GOOS, f.path))
		return false
	}
	defer v.Close()
	defer d.index(v)
	defer d.pending(v)
	files, err := v.Files()
	if err != nil {
		d.fail(fmt.Sprintf("native backend: cannot list %s: %v", f.path, err), permissionFix(d.m.GOOS, f.path))
		return false
	}
	extra := ""
	if cfg.VaultPath == "" {
		extra = " (learned from the app; set OBSIDIAN_VAULT_PATH to it so this also works when Obsidian is closed as the server starts)"
	}
	if cfg.ReadOnly {
		// Nothing is written, by this check either.
		d.ok("native backend: %s is readable (%s); read-only: the server refuses every write%s", f.path, doctorpkg.Plural(len(files), "file"), extra)
		return true
	}
	probe, err := os.CreateTemp(f.path, ".obsidian-mcp-doctor-*")
	if err == nil {
		name := probe.Name()
		_, err = probe.WriteString("probe\n")
		err = errors.Join(err, probe.Close(), os.Remove(name))
	}
	if err != nil {
		d.fail(fmt.Sprintf("native backend: cannot write in %s: %v", f.path, err), permissionFix(d.m.GOOS, f.path))
		return false
	}
	d.ok("native backend: %s is readable (%s) and writable%s", f.path, doctorpkg.Plural(len(files), "file"), extra)
	return true
}

// pending reports what a crash left for the person: journal entries not
// finished, and notes a recovery left to check. Either is a warning with
// its fix (the server works; nothing else would tell them).
func (d *doctor) pending(v *native.Engine) {
	p := v.Pending()
	if len(p.Entries) > 0 {
		d.warn("journal: "+doctorpkg.Plural(len(p.Entries), "edit")+" interrupted by a crash not finished yet: "+strings.Join(p.Entries, ", "),
			"start the server once (not --read-only): it finishes them and says what it did in its log; an entry it leaves alone is named there with why")
	}
	for _, r := range p.Reports {
		d.warn("journal: a recovery left notes to check ("+r.Path+"): "+strings.TrimSpace(strings.ReplaceAll(r.Text, "\n", " ")),
			"check the notes it names, then remove "+r.Path)
	}
}

// index reports where the search index is kept between runs and what is
// saved there. Nothing there is a failure: the first search builds it.
func (d *doctor) index(v *native.Engine) {
	st := v.IndexState()
	switch {
	case !st.Kept:
		d.skip("search index: kept in memory only (--index-dir off): every start builds it, about 2 s per 10,000 notes")
	case !st.Saved:
		d.skip("search index: none saved yet in %s; the first search builds it and saves it there", st.Dir)
	case st.Err != nil:
		d.skip("search index: the one saved in %s will not be used (%v); the first search builds it again", st.Dir, st.Err)
	default:
		d.ok("search index: saved in %s (%s, %.1f MB, %s); a start reads only the notes changed since", st.Dir,
			doctorpkg.Plural(st.Info.Notes, "note"), float64(st.Size)/(1<<20), st.Info.Saved.Local().Format("2006-01-02 15:04"))
	}
}

// policy reports the folder policy in force: the configured rules, with
// the vault folder's .mcpignore when the folder is known. An ignore file
// that cannot be used hides every note, so it fails the setup.
func (d *doctor) policy(cfg Config, folder string) bool {
	pol := cfg.Policy
	if folder != "" {
		pol = policy.Watch(cfg.Policy, folder).Current()
	}
	if err := pol.Err(); err != nil {
		d.fail("folder policy: "+err.Error()+", so every note is hidden", "correct that line of "+filepath.Join(folder, policy.IgnoreFile)+" (.gitignore syntax), or make the file readable")
		return false
	}
	desc := pol.Describe()
	if cfg.ReadOnly {
		// The policy alone would call notes writable; the server is not.
		desc = strings.Replace(desc, "visible and writable", "visible", 1) + "; read-only, so no note is writable"
	}
	if !pol.Restricts() {
		d.skip("folder policy: %s", desc)
		return true
	}
	d.ok("folder policy: %s", desc)
	return true
}

func permissionFix(goos, dir string) string {
	fix := "give the user running the server read and write access to " + dir
	if goos == "darwin" {
		fix += "; on macOS also allow the MCP host (e.g. Claude) in System Settings → Privacy & Security → Files and Folders (or Full Disk Access) when the vault is in Documents, Desktop or iCloud Drive"
	}
	return fix
}

// settings prints the effective configuration and where each value came from.
func (d *doctor) settings(cfg Config) {
	fmt.Fprintln(d.Out, "\nEffective configuration:")
	for _, s := range cfg.Settings {
		v := s.Value
		if v == "" {
			v = "(unset)"
		}
		name := "--" + s.Flag
		if s.Flag == "" {
			name = s.Env // no flag: a secret
		}
		fmt.Fprintf(d.Out, "    %-19s %-28s from %s\n", name, v, s.Source)
	}
}

// sampleConfig prints an entry for claude_desktop_config.json that starts
// this binary with the settings that differ from the defaults.
func (d *doctor) sampleConfig(cfg Config, folder string) {
	env := map[string]string{}
	stdio := map[string]bool{} // serve's own settings have no place there
	for _, r := range Rows() {
		stdio[r.Env] = true
	}
	for _, s := range cfg.Settings {
		if s.Source != "default" && s.Value != "" && stdio[s.Env] {
			env[s.Env] = s.Value
		}
	}
	if _, ok := env["OBSIDIAN_VAULT_PATH"]; !ok && folder != "" {
		env["OBSIDIAN_VAULT_PATH"] = folder
	}
	data := d.ClaudeEntry([]string{}, env)
	where := map[string]string{
		"darwin":  "~/Library/Application Support/Claude/claude_desktop_config.json",
		"windows": `%APPDATA%\Claude\claude_desktop_config.json`,
	}[d.m.GOOS]
	if where == "" {
		where = "claude_desktop_config.json"
	}
	fmt.Fprintf(d.Out, "\nClaude Desktop (%s; or install the .mcpb bundle instead):\n%s\n\n", where, data)
}

// atLeast reports whether an `obsidian version` answer such as
// "1.12.7 (installer 1.12.7)" is at least min.
func atLeast(version string, min [2]int) bool {
	fields := strings.Fields(version)
	if len(fields) == 0 {
		return false
	}
	parts := strings.Split(fields[0], ".")
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > min[0] || major == min[0] && minor >= min[1]
}

// sameFolder compares folders as the file system does (symlinks, case).
func sameFolder(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// vaultAbove is the nearest folder above dir that holds .obsidian/, or "".
func vaultAbove(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for p := filepath.Dir(abs); p != filepath.Dir(p); p = filepath.Dir(p) {
		if isDir(filepath.Join(p, ".obsidian")) {
			return p
		}
	}
	return ""
}

// partOf is dir as a vault path inside the vault at top.
func partOf(top, dir string) string {
	abs, _ := filepath.Abs(dir)
	rel, err := filepath.Rel(top, abs)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(rel)
}
