//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// TestRenameOutOfDescriptorsIsNotSuccess: a server that runs out of file
// descriptors while it rewrites the links of a renamed note answers
// TOO_MANY_OPEN_FILES with the notes left, not success, and keeps its
// journal entry; the next start completes the rename, and no link to the
// old name is left. (It used to answer success, list the notes in
// links.failed, drop the entry, and leave the links for good.)
func TestRenameOutOfDescriptorsIsNotSuccess(t *testing.T) {
	t.Parallel()
	const notes = 300
	dir := t.TempDir()
	writeNote(t, dir, "Hub.md", "# Hub\n")
	for i := range notes {
		writeNote(t, dir, fmt.Sprintf("N/n%03d.md", i), fmt.Sprintf("Note %d links [[Hub]].\n", i))
	}
	var answered outcome
	for _, limit := range []int{26, 30, 34, 40, 48} {
		cs := limitedServer(t, dir, limit)
		if cs == nil {
			continue // too few descriptors to start at all
		}
		_, o := toolCall(t, cs, "obsidian_rename_note", map[string]any{"path": "Hub.md", "new_name": "Center"})
		_ = cs.Close()
		if o.Error != nil && o.Error.Data["errorCode"] == "TOO_MANY_OPEN_FILES" {
			answered = o
			break
		}
		if o.Error == nil && o.Result != nil && !o.Result.IsError {
			t.Fatalf("with %d descriptors the rename answered success: %s", limit, brief(o))
		}
		t.Logf("with %d descriptors: %s", limit, brief(o))
	}
	if answered.Error == nil {
		t.Fatal("no descriptor limit made the rename run out part way")
	}
	failed, _ := answered.Error.Data["failed"].([]any)
	if len(failed) == 0 || !strings.Contains(answered.Error.Message, "next start") {
		t.Errorf("answer %s: want the notes left in data.failed", brief(answered))
	}
	if stale := linking(t, dir, "[[Hub]]"); stale == 0 {
		t.Errorf("no note was left with the old link: the limit did not bite")
	}
	// The next start completes it.
	cs := nativeServer(t, dir)
	if _, o := toolCall(t, cs, "obsidian_read_note", map[string]any{"path": "Center.md"}); o.Error != nil {
		t.Fatal(brief(o))
	}
	if stale := linking(t, dir, "[[Hub]]"); stale != 0 {
		t.Errorf("%d notes still link [[Hub]] after the restart", stale)
	}
	if got := linking(t, dir, "[[Center]]"); got != notes {
		t.Errorf("%d notes link [[Center]], want %d", got, notes)
	}
}

// limitedServer starts a server on dir whose process may hold limit open
// files at once, or returns nil if it cannot start with so few.
func limitedServer(t *testing.T, dir string, limit int) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -n %d && exec \"$0\"", limit), binary)
	cmd.Env = append(os.Environ(), "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir, "OBSIDIAN_MCP_INDEX_DIR=off")
	stderr := &obsidiantest.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Logf("with %d descriptors the server did not start: %v (stderr %s)", limit, err, stderr)
		return nil
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// linking counts the notes under dir/N holding link.
func linking(t *testing.T, dir, link string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "N"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, "N", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), link) {
			n++
		}
	}
	return n
}
