package obsidiantest

import (
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// run invokes the fake like a user at a shell would, returning stdout,
// stderr and the exit status.
func run(t *testing.T, f *Fake, args ...string) (string, string, int) {
	t.Helper()
	return RunCommand(t, exec.Command(f.Bin, args...))
}

// TestFakeMatchesReference pins the behaviours docs/cli.md reports for
// the real CLI, so tests built on the fake test against the real quirks.
func TestFakeMatchesReference(t *testing.T) {
	t.Parallel()
	f := Install(t, Scenario{})
	tests := []struct {
		name   string
		args   []string
		stdout string
	}{
		{"create", []string{"create", "path=folder/p1.md", `content=a\nb\tc\\times`}, "Created: folder/p1.md\n"},
		{"escapes converted, no backslash escape", []string{"read", "path=folder/p1.md"}, "a\nb\tc\\\times\n"},
		{"collision makes a side copy", []string{"create", "path=folder/p1.md", "content=x"}, "Created: folder/p1 1.md\n"},
		{"overwrite", []string{"create", "path=folder/p1.md", "content=y", "overwrite"}, "Overwrote: folder/p1.md\n"},
		{"read adds one final newline", []string{"read", "path=folder/p1.md"}, "y\n"},
		{"name= adds .md at the root", []string{"create", "name=Foo"}, "Created: Foo.md\n"},
		{"no locator creates Untitled", []string{"create"}, "Created: Untitled.md\n"},
		{"file= picks one silently", []string{"read", "file=p1"}, "y\n"},
		{"missing file", []string{"read", "path=nope.md"}, "Error: File \"nope.md\" not found.\n"},
		{"no active file", []string{"read"}, "Error: No active file. Use file=<name> or path=<path> to specify a file.\n"},
		{"append", []string{"append", "path=Foo.md", "content=line"}, "Appended to: Foo.md\n"},
		{"missing required to=", []string{"move", "path=Foo.md"}, "Error: Missing required parameter: to=<path>\nUsage: move [file=<name>] [path=<path>] to=<path>\n"},
		{"rename keeps the extension", []string{"rename", "path=Foo.md", "name=Bar"}, "Renamed: Foo.md -> Bar.md\n"},
		{"destination exists", []string{"rename", "path=Bar.md", "name=Untitled"}, "Error: Destination file already exists!\n"},
		{"file info", []string{"file", "path=Bar.md"}, "path\tBar.md\nname\tBar\nextension\tmd\nsize\t4\n"},
		{"traversal is a JS error", []string{"create", "path=x/../../etc/a.md"}, "TypeError: Cannot read properties of null (reading 'getParentPrefix')\n"},
		{"unknown command", []string{"frobnicate"}, "Error: Command \"frobnicate\" not found. Did you mean: help, version?\n"},
		{"delete to trash", []string{"delete", "path=Bar.md"}, "Moved to trash: Bar.md\n"},
		{"version", []string{"version"}, "1.12.7 (installer 1.12.7)\n"},
	}
	for _, tt := range tests {
		stdout, stderr, code := run(t, f, tt.args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, tt.stdout) {
			t.Errorf("%s: obsidian %q = %q, %q, exit %d; want %q on stdout, exit 0", tt.name, tt.args, stdout, stderr, code, tt.stdout)
		}
	}
	if content, _ := f.Note("Bar.md"); content != "" {
		t.Error("trashed note still in place")
	}
}

func TestFakeFailureModes(t *testing.T) {
	t.Parallel()
	f := Install(t, Scenario{NotRunning: true})
	stdout, stderr, code := run(t, f, "version")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "unable to find Obsidian") {
		t.Errorf("not running: %q %q %d", stdout, stderr, code)
	}
	g := Install(t, Scenario{VaultName: "Work", Noise: true})
	stdout, _, _ = run(t, g, "vault=Other", "version")
	if !strings.HasSuffix(stdout, "\nVault not found.\n") || !strings.HasPrefix(stdout, "2026-") {
		t.Errorf("unknown vault with noise: %q", stdout)
	}
	stdout, _, _ = run(t, g, "version", "vault=Other") // vault= only counts first
	if !strings.HasSuffix(stdout, "1.12.7 (installer 1.12.7)\n") {
		t.Errorf("vault= after the command: %q", stdout)
	}
	if calls := g.Calls(); len(calls) != 2 || calls[0][0] != "vault=Other" {
		t.Errorf("calls = %q", calls)
	}
}
