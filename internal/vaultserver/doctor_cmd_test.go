package vaultserver

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	doctorpkg "github.com/obsidian-mcp/obsidian-mcp/internal/doctor"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/native"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/obsidiancli"
)

// nowhere is a machine where the CLI is not installed: nothing on PATH and
// nothing in the install locations, while a configured path (the tests'
// temporary folders) is looked at for real.
var nowhere = obsidiancli.Finder{
	GOOS:     runtime.GOOS,
	Getenv:   func(string) string { return "" },
	LookPath: func(string) (string, error) { return "", os.ErrNotExist },
	Stat: func(p string) (fs.FileInfo, error) {
		if !strings.HasPrefix(p, os.TempDir()) {
			return nil, fs.ErrNotExist
		}
		return os.Stat(p)
	},
}

// onPath is a machine whose PATH holds bin as the CLI (obsidian, or
// Obsidian.com on Windows).
func onPath(bin string) obsidiancli.Finder {
	f := nowhere
	f.LookPath = func(name string) (string, error) {
		if name == "obsidian" || name == "Obsidian.com" {
			return bin, nil
		}
		return "", os.ErrNotExist
	}
	return f
}

// TestDoctor: what doctor says of the vault server's settings on a
// machine, and that a real start agrees (serve's section is internal/app's).
func TestDoctor(t *testing.T) {
	t.Parallel()
	// vaultDir is a folder Obsidian would recognise as a vault.
	vaultDir := func(t *testing.T) string {
		d := t.TempDir()
		if err := os.Mkdir(filepath.Join(d, ".obsidian"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "Note.md"), []byte("hi"), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	type setup struct {
		args   []string
		env    map[string]string
		finder obsidiancli.Finder
		fake   *obsidiantest.Fake // for {bin} and {vault} in want
		// probe is where the real start's check writes (default
		// doctor-probe.md): inside what the settings let it write.
		probe string
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T) setup
		exit    int
		want    []string // lines (or parts of lines) that must appear, in order
		absent  []string
	}{
		{
			name: "app running, folder given: everything works",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: vaultDir(t)})
				return setup{args: []string{"--vault-path", f.Vault}, finder: onPath(f.Bin), fake: f}
			},
			exit: 0,
			want: []string{
				"✓ obsidian-mcp 1.2.3-test",
				"✓ configuration is valid (backend auto)",
				"✓ Obsidian CLI: {bin} (on PATH)",
				"✓ Obsidian app: answers, version 1.12.7 (installer 1.12.7)",
				"✓ vault: the active vault is at {vault} (the CLI acts on whichever vault is active",
				"✓ native backend: {vault} is readable (1 file) and writable",
				"--vault-path        {vault}",
				`"command": "/opt/obsidian-mcp"`,
				`"OBSIDIAN_VAULT_PATH": "{vaultJSON}"`,
				"✓ ready: tools are served by the Obsidian app, and from the vault folder while it is closed (backend auto)",
			},
			absent: []string{"✗"},
		},
		{
			name: "search index: where it is kept and what is saved",
			prepare: func(t *testing.T) setup {
				d := vaultDir(t)
				v, err := native.Open(d, native.WithSavedIndex("")) // the cache folder, as the server's default
				if err != nil {
					t.Fatal(err)
				}
				if _, err := v.Search(t.Context(), note.SearchRequest{Query: "anything", Limit: 1}); err != nil {
					t.Fatal(err)
				}
				_ = v.Close() // after the index is saved
				return setup{args: []string{"--backend", "native", "--vault-path", d}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"✓ search index: saved in ", "obsidian-mcp-cache", filepath.FromSlash("/obsidian-mcp/index/"), " (1 note, ", "a start reads only the notes changed since", "✓ ready"},
			absent: []string{"✗"},
		},
		{
			name: "a recovery's notes to check, and an unfinished edit, are shown with their fix",
			prepare: func(t *testing.T) setup {
				d := vaultDir(t)
				for p, c := range map[string]string{
					".obsidian-mcp/reports/00000000000000000001-AAAAAAAA.txt":  "rename_tag\ncompleted the rename of tag proj to done: left for you to check: [Note.md]\n",
					".obsidian-mcp/journal/00000000000000000002-BBBBBBBB.json": `{"op":"move","host":"elsewhere"}`,
				} {
					f := filepath.Join(d, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(f, []byte(c), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				return setup{args: []string{"--backend", "native", "--vault-path", d}, finder: nowhere}
			},
			exit: 0,
			want: []string{
				"! journal: 1 edit interrupted by a crash not finished yet: .obsidian-mcp/journal/00000000000000000002-BBBBBBBB.json (move)",
				"! journal: a recovery left notes to check (.obsidian-mcp/reports/00000000000000000001-AAAAAAAA.txt): rename_tag completed the rename of tag proj to done: left for you to check: [Note.md]",
				"check the notes it names, then remove .obsidian-mcp/reports/00000000000000000001-AAAAAAAA.txt",
			},
		},
		{
			name: "search index: in memory only",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--index-dir", "off"}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"– search index: kept in memory only (--index-dir off)", "✓ ready"},
			absent: []string{"✗"},
		},
		{
			name: "folder policy: the rules and the vault's ignore file are reported",
			prepare: func(t *testing.T) setup {
				d := vaultDir(t)
				if err := os.WriteFile(filepath.Join(d, ".mcpignore"), []byte("# private\nDrafts/\n*.tmp\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return setup{args: []string{"--backend", "native", "--vault-path", d, "--deny-paths", "Private/**", "--write-paths", "Inbox/**"}, finder: nowhere, probe: "Inbox/doctor-probe.md"}
			},
			exit:   0,
			want:   []string{"✓ folder policy: hides --deny-paths Private/**; hides what .mcpignore says (2 patterns); writes only --write-paths Inbox/**", "✓ ready"},
			absent: []string{"✗"},
		},
		{
			name: "folder policy: a bad .mcpignore line hides everything, so not ready",
			prepare: func(t *testing.T) setup {
				d := vaultDir(t)
				if err := os.WriteFile(filepath.Join(d, ".mcpignore"), []byte("ok/\nbad[\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return setup{args: []string{"--backend", "native", "--vault-path", d}, finder: nowhere}
			},
			exit: 1,
			want: []string{`✗ folder policy: .mcpignore line 2: "bad[" is not a valid pattern`, "so every note is hidden", "fix: correct that line of", "✗ not ready"},
		},
		{
			name: "app closed, folder given: ready from the folder, the app's fix a warning",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: vaultDir(t), NotRunning: true})
				return setup{env: map[string]string{"OBSIDIAN_VAULT_PATH": f.Vault}, finder: onPath(f.Bin), fake: f}
			},
			exit: 0,
			want: []string{
				"! Obsidian app: not running",
				"fix: meanwhile the vault folder serves the tools; to be served by the app: start Obsidian and leave it running",
				"✓ vault folder: {vault} (set by OBSIDIAN_VAULT_PATH)",
				"✓ native backend: {vault} is readable",
				"✓ ready: tools are served from the vault folder {vault} (backend auto)",
			},
		},
		{
			name: "app closed in cli mode: not ready",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{NotRunning: true})
				return setup{args: []string{"--backend", "cli", "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit: 1,
			want: []string{"✓ Obsidian CLI: {bin} (as configured)", "✗ Obsidian app: not running", "– native backend: not used (backend cli)", "✗ not ready"},
		},
		{
			name: "no CLI and no folder: not ready, with both fixes",
			prepare: func(t *testing.T) setup {
				return setup{finder: nowhere}
			},
			exit: 1,
			want: []string{
				"✗ Obsidian CLI not found: not on PATH nor where Obsidian installs it (looked for " + map[string]string{
					"linux":   "obsidian on PATH, /usr/local/bin/obsidian, /opt/Obsidian/obsidian-cli)",
					"darwin":  "obsidian on PATH, /usr/local/bin/obsidian, /Applications/Obsidian.app/Contents/MacOS/obsidian-cli)",
					"windows": `Obsidian.com on PATH, C:\Program Files\Obsidian\Obsidian.com)`,
				}[runtime.GOOS],
				"fix: install Obsidian 1.12 or later, enable Settings → General → Command line interface",
				"– Obsidian app: not asked (no CLI)",
				"✗ vault folder: unknown",
				"fix: set OBSIDIAN_VAULT_PATH (--vault-path)",
				"✗ not ready",
			},
		},
		{
			name: "CLI path configured wrongly",
			prepare: func(t *testing.T) setup {
				return setup{env: map[string]string{"OBSIDIAN_BIN": "/nonexistent/obsidian"}, finder: obsidiancli.Finder{}}
			},
			exit: 1,
			want: []string{"✗ Obsidian CLI not found: /nonexistent/obsidian does not exist", "fix: point OBSIDIAN_BIN (--obsidian-bin) at " + map[string]string{
				"linux":   "the CLI itself",
				"windows": "Obsidian.com (not Obsidian.exe)",
			}[runtime.GOOS], "OBSIDIAN_BIN"},
		},
		{
			name: "vault name unknown to Obsidian",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{VaultName: "Work"})
				return setup{args: []string{"--vault", "Personal", "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit: 1,
			want: []string{"✓ Obsidian app: answers", `✗ Obsidian does not know vault "Personal"`, "fix: set OBSIDIAN_VAULT (--vault) to a vault name Obsidian lists", "✗ not ready"},
		},
		{
			name: "named vault found; its folder is learned for the native backend",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: vaultDir(t), VaultName: "Work"})
				return setup{args: []string{"--vault", "Work", "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit: 0,
			want: []string{
				`✓ vault: vault "Work" is at {vault}`,
				"✓ native backend: {vault} is readable (1 file) and writable (learned from the app; set OBSIDIAN_VAULT_PATH to it",
				`"OBSIDIAN_VAULT": "Work"`,
				`"OBSIDIAN_VAULT_PATH": "{vaultJSON}"`,
				"✓ ready: tools are served by the Obsidian app",
			},
			absent: []string{"✗"},
		},
		{
			name: "auto mode does not bypass an app that answers with an unknown vault",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: vaultDir(t), VaultName: "Work"})
				return setup{args: []string{"--vault", "Personal", "--vault-path", f.Vault, "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit: 1,
			want: []string{`✗ Obsidian does not know vault "Personal"`, "✓ native backend: {vault} is readable", "✗ not ready"},
		},
		{
			name: "CLI missing, folder given: auto serves from the folder",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--vault-path", vaultDir(t)}, finder: nowhere}
			},
			exit: 0,
			want: []string{"! Obsidian CLI not found", "fix: meanwhile the vault folder serves the tools", "– Obsidian app: not asked (no CLI)", "✓ vault folder:", "✓ native backend:", "✓ ready: tools are served from the vault folder"},
		},
		{
			// The app is not asked with backend native: not spoken of.
			name: "backend native, a folder that does not exist: the folder is named, not the app",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native", "--vault-path", filepath.Join(t.TempDir(), "gone")}, finder: nowhere}
			},
			exit:   1,
			want:   []string{"✗ configuration: invalid --vault-path", "– Obsidian CLI: not used (backend native)", "✗ vault folder: unknown (OBSIDIAN_VAULT_PATH ", "cannot be used)", "Fix first: configuration: invalid --vault-path", "✗ not ready"},
			absent: []string{"app did not answer", "✓ ready"},
		},
		{
			name: "backend native without a folder",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native"}, finder: nowhere}
			},
			exit:   1,
			want:   []string{"✗ vault folder: none given (backend native serves the vault folder", "fix: set OBSIDIAN_VAULT_PATH", "✗ not ready"},
			absent: []string{"app did not answer"},
		},
		{
			name: "folder given is another vault than the app's",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: vaultDir(t)})
				return setup{args: []string{"--vault-path", vaultDir(t), "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit: 1,
			want: []string{"but Obsidian's the active vault is at {vault}: with the app closed the server would work on a different vault", "fix: make them the same vault: set OBSIDIAN_VAULT_PATH to {vault}", "✗ not ready"},
		},
		{
			name: "the same vault through a symlink is no mismatch",
			prepare: func(t *testing.T) setup {
				if runtime.GOOS == "windows" {
					t.Skip("a symbolic link to a folder needs SeCreateSymbolicLinkPrivilege on Windows, which a user's account lacks; their links are junctions")
				}
				f := obsidiantest.Install(t, obsidiantest.Scenario{Vault: vaultDir(t)})
				link := filepath.Join(t.TempDir(), "link")
				if err := os.Symlink(f.Vault, link); err != nil {
					t.Skip(err)
				}
				return setup{args: []string{"--vault-path", link, "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit:   0,
			absent: []string{"✗"},
		},
		{
			name: "Obsidian older than the CLI",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Canned: &obsidiantest.Canned{Stdout: "1.11.4 (installer 1.11.4)\n"}})
				return setup{args: []string{"--backend", "cli", "--obsidian-bin", f.Bin}, finder: nowhere, fake: f}
			},
			exit: 1,
			want: []string{`✗ Obsidian app: version "1.11.4 (installer 1.11.4)", older than 1.12`, "fix: update Obsidian"},
		},
		{
			name: "app frozen: reported within the probe timeout",
			prepare: func(t *testing.T) setup {
				f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}})
				return setup{args: []string{"--backend", "cli", "--obsidian-bin", f.Bin, "--timeout", "300ms"}, finder: nowhere, fake: f}
			},
			exit: 1,
			want: []string{"✗ Obsidian app: no answer within 300ms", "fix: bring Obsidian to the front"},
		},
		{
			// Noted, not failed: the server serves it, and doctor says so
			// (it said ✗ and then ready, exit 0).
			name: "folder without .obsidian is noted and works",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native", "--vault-path", t.TempDir()}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"– Obsidian CLI: not used (backend native)", "has no .obsidian folder: it is served as a plain folder of notes", "point OBSIDIAN_VAULT_PATH at the folder that holds .obsidian/", "✓ native backend:", "✓ ready: tools are served from the vault folder"},
			absent: []string{"✗"},
		},
		{
			name: "a folder inside a vault is noted as one",
			prepare: func(t *testing.T) setup {
				top := t.TempDir()
				for _, d := range []string{".obsidian", "Notes/Deep"} {
					if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				return setup{args: []string{"--backend", "native", "--vault-path", filepath.Join(top, "Notes", "Deep")}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"– vault folder ", "is a folder inside the vault at ", "(which holds .obsidian/)", "--read-paths 'Notes/Deep/**'", "✓ ready"},
			absent: []string{"✗"},
		},
		{
			name: "invalid settings are each reported, the rest still checked",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--timeout", "soon", "--vault-path", "/nonexistent/v"}, env: map[string]string{"OBSIDIAN_VAULT": "${user_config.vault}"}, finder: nowhere}
			},
			exit: 1,
			want: []string{
				"– ignored OBSIDIAN_VAULT=${user_config.vault} (an unfilled install setting; treated as unset)",
				`✗ configuration: invalid --vault-path "/nonexistent/v": is not an existing folder`,
				`✗ configuration: invalid --timeout "soon"`,
				"✗ Obsidian CLI not found",
				// The folder given cannot be used: said so, not "no folder".
				"✗ vault folder: unknown (OBSIDIAN_VAULT_PATH /nonexistent/v cannot be used, and the app did not answer)",
				"✗ not ready",
			},
			absent: []string{"no OBSIDIAN_VAULT_PATH"},
		},
		{
			name: "read-only: the folder is not written, not even by doctor",
			prepare: func(t *testing.T) setup {
				return setup{args: []string{"--backend", "native", "--vault-path", vaultDir(t), "--read-only"}, finder: nowhere}
			},
			exit:   0,
			want:   []string{"read-only: the server refuses every write", "✓ ready"},
			absent: []string{"and writable"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.prepare(t)
			var out strings.Builder
			m := Machine{Finder: s.finder, Executable: "/opt/obsidian-mcp", GOOS: runtime.GOOS}
			cfg, err := ParseConfig(s.args, func(k string) string { return s.env[k] })
			code := Doctor(t.Context(), cfg, err, &doctorpkg.Report{Out: &out, Executable: m.Executable}, "1.2.3-test", m)
			got := out.String()
			if code != tt.exit {
				t.Errorf("exit %d, want %d", code, tt.exit)
			}
			placeholders := strings.NewReplacer()
			if s.fake != nil {
				// In the JSON of the client configuration a path is escaped
				// (Windows' backslashes doubled).
				vaultJSON, _ := json.Marshal(s.fake.Vault)
				placeholders = strings.NewReplacer("{bin}", s.fake.Bin, "{vault}", s.fake.Vault,
					"{vaultJSON}", strings.Trim(string(vaultJSON), `"`))
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = placeholders.Replace(w)
			}
			obsidiantest.InOrder(t, got, want, tt.absent)
			// One verdict: a run that ends ready shows no ✗, and only it
			// prints the Claude Desktop entry; one that does not, names
			// what to fix first instead.
			ready := strings.Contains(got, "✓ ready")
			if ready == strings.Contains(got, "✗") || ready != (code == 0) {
				t.Errorf("exit %d: a ready verdict must come with no ✗, and a ✗ with no ready verdict", code)
			}
			if ready != strings.Contains(got, `"mcpServers"`) || !ready && !strings.Contains(got, "no entry to paste until the setup is ready. Fix first: ") {
				t.Errorf("exit %d: the Claude Desktop entry is printed only when ready (else what to fix first)", code)
			}
			// What doctor says must be what the server does: started
			// with the same settings on the same machine, a call works
			// exactly when doctor said ready.
			getenv := func(k string) string { return s.env[k] }
			if cfg, err := ParseConfig(s.args, getenv); err == nil {
				if cfg.ObsidianBin == "" {
					// doctor's machine: where its finder finds the CLI.
					if found, _, err := s.finder.Find(""); err == nil {
						cfg.ObsidianBin = found.Path
					} else {
						cfg.ObsidianBin = filepath.Join(t.TempDir(), "no-obsidian-here")
					}
				}
				if works, answer := serverWorks(t, cfg, cmp.Or(s.probe, "doctor-probe.md")); works != (code == 0) {
					t.Errorf("doctor exit %d, but a real start's call worked=%v: %.300s", code, works, answer)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", got)
			}
		})
	}
}

// serverWorks starts the stdio server with cfg and reports whether it
// serves tools: a note created is then read back (a write where the
// server writes, a read where it reads: both must reach the one vault),
// with what it answered.
func serverWorks(t *testing.T, cfg Config, probe string) (bool, string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, inR, outW, slog.New(slog.DiscardHandler), "test"); _ = outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	var all strings.Builder
	ask := func(msg, id string) string {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			return ""
		}
		for lines.Scan() {
			all.WriteString(lines.Text() + "\n")
			if strings.Contains(lines.Text(), `"id":`+id+`,`) {
				return lines.Text()
			}
		}
		return ""
	}
	ok := func(answer string) bool {
		return strings.Contains(answer, `"result"`) && !strings.Contains(answer, `"isError":true`)
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "1")
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	var created, read string
	want := "probe"
	if cfg.ReadOnly {
		want = "hi" // Note.md, which every scenario's vault holds
		// Nothing may be written: a note of the vault is listed and read.
		created = ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_list_files","arguments":{}}}`, "2")
		read = ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Note.md"}}}`, "3")
	} else {
		created = ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_create_note","arguments":{"path":"`+probe+`","content":"probe"}}}`, "2")
		read = ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"`+probe+`"}}}`, "3")
	}
	_ = inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if err := <-done; err != nil {
		return false, err.Error()
	}
	return ok(created) && ok(read) && strings.Contains(read, `"text":"`+want+`"`), all.String()
}
