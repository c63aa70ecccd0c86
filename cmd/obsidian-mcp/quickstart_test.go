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
	t.Parallel()
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
	cmd.Env = append(os.Environ(), goCaches...) // go run: the developer's caches
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("quick start failed: %v\nstderr:\n%s", err, stderr.String())
	}
	// Answers are matched to requests by id; they may come in any order.
	byID := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		_, rest, _ := strings.Cut(line, `"id":`)
		id, _, _ := strings.Cut(rest, ",")
		byID[id] = line
	}
	if len(byID) != 2 || !strings.Contains(byID["1"], `"result":{"protocolVersion"`) ||
		!strings.Contains(byID["2"], `"result":`) || !strings.Contains(byID["2"], "This is the example vault that ships with obsidian-mcp.") {
		t.Errorf("stdout =\n%s\nwant the initialize answer and the note Welcome", stdout.String())
	}
	if !strings.Contains(stderr.String(), "backend=native") {
		t.Errorf("stderr does not log the native backend:\n%s", stderr.String())
	}
}
