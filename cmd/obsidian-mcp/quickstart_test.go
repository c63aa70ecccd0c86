package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestQuickStart runs the README's quick-start command exactly as written,
// from the repository root, the way a newcomer would.
func TestQuickStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the quick start is a POSIX shell command")
	}
	if testing.Short() {
		t.Skip("compiles the server with go run")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- quickstart -->\n```sh\n")
	if !ok {
		t.Fatal("README.md has no quick-start block")
	}
	command, _, ok := strings.Cut(rest, "```")
	if !ok || !strings.Contains(command, "go run ./cmd/obsidian-mcp --backend native --vault-path examples/vault") {
		t.Fatalf("unexpected quick-start command:\n%s", command)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = root
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("quick start failed: %v\nstderr:\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","id":2,"result":`) ||
		!strings.Contains(lines[1], "This is the example vault that ships with obsidian-mcp.") {
		t.Errorf("stdout =\n%s\nwant the initialize answer, then the note Welcome", stdout.String())
	}
	if !strings.Contains(stderr.String(), "backend=native") {
		t.Errorf("stderr does not log the native backend:\n%s", stderr.String())
	}
}
