package obsidiancli

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

func TestMain(m *testing.M) { obsidiantest.Main(m) }

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newClient(f *obsidiantest.Fake) *Client {
	return &Client{Bin: f.Bin, Timeout: 10 * time.Second, Logger: discard()}
}

func TestRunArgvVaultFirst(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{VaultName: "Work"})
	c := newClient(f)
	c.Vault = "Work"
	if _, err := c.Run(t.Context(), "version"); err != nil {
		t.Fatal(err)
	}
	c2 := newClient(f)
	c2.Vault = "Personal"
	_, err := c2.Run(t.Context(), "files")
	if k := errors.From(err); k == nil || k.Kind != errors.VaultNotFound || k.Code() != -32002 {
		t.Fatalf("wrong vault: err = %v, want VAULT_NOT_FOUND", err)
	}
	want := [][]string{{"vault=Work", "version"}, {"vault=Personal", "files"}}
	if got := f.Calls(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("argv = %q, want %q", got, want)
	}
}

func TestRunNotRunning(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{NotRunning: true})
	_, err := newClient(f).Run(t.Context(), "files")
	e := errors.From(err)
	if e.Kind != errors.NotRunning || e.Code() != -32001 || !strings.Contains(e.Hint, "Start Obsidian") {
		t.Fatalf("err = %v (%s), want OBSIDIAN_NOT_RUNNING with a hint", err, e.Kind)
	}
}

func TestRunCLINotFound(t *testing.T) {
	t.Parallel()
	for _, bin := range []string{filepath.Join(t.TempDir(), "obsidian"), "obsidian-definitely-not-installed", t.TempDir()} {
		_, err := (&Client{Bin: bin, Logger: discard()}).Run(t.Context(), "version")
		e := errors.From(err)
		if e.Kind != errors.CLINotFound || e.Code() != -32001 || !strings.Contains(e.Hint, "--obsidian-bin") {
			t.Errorf("Bin=%q: err = %v (%s), want OBSIDIAN_CLI_NOT_FOUND", bin, err, e.Kind)
		}
	}
}

func TestRunCLINotFoundListsWhereItLooked(t *testing.T) {
	t.Parallel()
	c := &Client{Logger: discard(), Finder: Finder{GOOS: "linux", Getenv: func(string) string { return "" },
		LookPath: func(string) (string, error) { return "", os.ErrNotExist },
		Stat:     func(p string) (fs.FileInfo, error) { return nil, fs.ErrNotExist }}}
	_, err := c.Run(t.Context(), "version")
	e := errors.From(err)
	if e.Kind != errors.CLINotFound || !strings.Contains(e.Message, "/usr/local/bin/obsidian") || !strings.Contains(e.Hint, "obsidian-mcp doctor") {
		t.Fatalf("err = %v (%s, hint %q), want OBSIDIAN_CLI_NOT_FOUND naming the places and doctor", err, e.Kind, e.Hint)
	}
}

// TestRunFindsInstalledCLI: with no --obsidian-bin and nothing on PATH, the
// client runs the CLI from Obsidian's install location.
func TestRunFindsInstalledCLI(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("uses Linux's install location")
	}
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(f.Bin), filepath.Join(home, ".local", "bin")); err != nil {
		t.Fatal(err)
	}
	c := &Client{Logger: discard(), Finder: Finder{
		Getenv:   func(k string) string { return map[string]string{"HOME": home}[k] },
		LookPath: func(string) (string, error) { return "", os.ErrNotExist },
	}}
	out, err := c.Run(t.Context(), "version")
	if err != nil || out != "1.12.7 (installer 1.12.7)\n" {
		t.Fatalf("Run = %q, %v", out, err)
	}
	if len(f.Calls()) != 1 {
		t.Errorf("the fake ran %d times, want 1", len(f.Calls()))
	}
}

func TestRunNoise(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{Noise: true})
	out, err := newClient(f).Run(t.Context(), "version")
	if err != nil || out != "1.12.7 (installer 1.12.7)\n" {
		t.Fatalf("Run = %q, %v; want the version without noise", out, err)
	}
}

func TestRunColdStartRetriesOnce(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{ColdStart: 1})
	out, err := newClient(f).Run(t.Context(), "version")
	if err != nil || !strings.HasPrefix(out, "1.12.7") {
		t.Fatalf("Run = %q, %v; want success after one retry", out, err)
	}
	if n := len(f.Calls()); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
	g := obsidiantest.Install(t, obsidiantest.Scenario{ColdStart: 5})
	_, err = newClient(g).Run(t.Context(), "version")
	if e := errors.From(err); e.Kind != errors.CLIError || !strings.Contains(e.Hint, "loading") {
		t.Fatalf("persistent cold start: err = %v, want CLI_ERROR with a hint", err)
	}
	if n := len(g.Calls()); n != 2 {
		t.Errorf("%d calls, want exactly one retry", n)
	}
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := newClient(f).Run(ctx, "files")
	if e := errors.From(err); e.Kind != errors.Cancelled {
		t.Fatalf("err = %v, want CANCELLED", err)
	}
}

func TestCommandTimeoutOverride(t *testing.T) {
	t.Parallel()
	c := &Client{Timeout: time.Second, CommandTimeouts: map[string]time.Duration{"move": time.Minute}}
	if c.timeout("move") != time.Minute || c.timeout("read") != time.Second || (&Client{}).timeout("x") != DefaultTimeout {
		t.Error("per-command timeouts not applied")
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	got := redact([]string{"create", "path=a.md", "content=secret body"})
	if strings.Contains(strings.Join(got, " "), "secret") || got[2] != "content=<11 bytes>" {
		t.Errorf("redact = %q", got)
	}
}

func TestOutputLimit(t *testing.T) {
	t.Parallel()
	b := &cappedBuffer{limit: 4}
	n, err := b.Write([]byte("abcdef"))
	if n != 6 || err != nil || b.String() != "abcd" || !b.overflow || b.total != 6 {
		t.Errorf("cappedBuffer: n=%d err=%v buf=%q overflow=%v", n, err, b.String(), b.overflow)
	}
}
