package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// TestKillMidChangeThenHistory: two server processes change one vault;
// one is killed with SIGKILL in the middle of a change of many parts (a
// tag renamed across the vault). After a restart, obsidian_history lists
// every change that landed, with exactly the parts that landed, and none
// that did not; the other process's changes, made while it lived on, are
// all there; the restart's completion of the interrupted edit is a change
// of its own; and undoing both puts every note back byte for byte.
func TestKillMidChangeThenHistory(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	untilKillLands(t, 250, 16000, "the rename always finished before the kill landed", func(notes int) bool {
		return killMidChange(t, notes)
	})
}

func killMidChange(t *testing.T, n int) bool {
	dir := t.TempDir()
	changesDir := t.TempDir()
	env := []string{"OBSIDIAN_MCP_CHANGES_DIR=" + changesDir}
	start := map[string]string{"A.md": "a\n", "B.md": "b\n"}
	for i := range n {
		start[fmt.Sprintf("N/n%05d.md", i)] = "Tagged #proj here.\n"
	}
	for p, s := range start {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := func(cs *mcp.ClientSession, p, line string) {
		t.Helper()
		if _, o := toolCall(t, cs, "obsidian_append_to_note", map[string]any{"path": p, "content": line}); o.Result == nil || o.Result.IsError {
			t.Fatalf("append to %s: %s", p, brief(o))
		}
	}
	other := nativeServer(t, dir, env...)
	write(other, "B.md", "b1")

	cmd := serverCmd(dir, env)
	killed, err := mcp.NewClient(&mcp.Implementation{Name: "killed", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(killed, "A.md", "a1")
	write(killed, "A.md", "a2")
	go func() {
		_, _ = killed.CallTool(context.Background(), &mcp.CallToolParams{Name: "obsidian_rename_tag", Arguments: map[string]any{"from": "proj", "to": "project"}})
	}()
	first := filepath.Join(dir, "N", "n00000.md")
	deadline := time.Now().Add(time.Minute)
	for {
		if data, _ := os.ReadFile(first); strings.Contains(string(data), "#project") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the rename never started")
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Close() // waits for the process
	renamed := map[string]bool{}
	for i := range n {
		p := fmt.Sprintf("N/n%05d.md", i)
		if data, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); strings.Contains(string(data), "#project") {
			renamed[p] = true
		}
	}
	if len(renamed) == n {
		return false
	}
	// The other process lives on, and writes after the kill.
	write(other, "B.md", "b2")

	again, stderr := goSDK(t, time.Minute, append_(env, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir)...)
	list := history(t, again, map[string]any{"limit": 200})
	byTool := map[string][]note.VaultChange{}
	for _, c := range list {
		byTool[c.Tool] = append(byTool[c.Tool], c)
	}
	if got := len(byTool["obsidian_append_to_note"]); got != 4 {
		t.Errorf("%d appends listed, want the 4 answered (2 of the killed process, 2 of the live one): %+v", got, list)
	}
	tags := byTool["obsidian_rename_tag"]
	if len(tags) != 1 {
		t.Fatalf("the interrupted rename: %d changes listed, want 1\n%s", len(tags), stderr)
	}
	landed := map[string]bool{}
	for _, p := range tags[0].Parts {
		landed[p.Path] = true
	}
	recovery := byTool["obsidian-mcp recovery"]
	if len(recovery) != 1 {
		t.Fatalf("the completion of the interrupted rename: %+v, want one change\n%s", recovery, stderr)
	}
	completed := map[string]bool{}
	for _, p := range recovery[0].Parts {
		completed[p.Path] = true
	}
	// Every note renamed when the process died is a part of its change,
	// and every other note a part of the completion (made by the live
	// process at its next write, or by the restart). A part the killed
	// process recorded and did not write, which the completion then wrote
	// with the very bytes it was to have, may be listed in both: the files
	// cannot tell the two writes apart, and an undo of both puts it back
	// once (below).
	for p := range renamed {
		if !landed[p] {
			t.Errorf("%s was renamed before the kill, and its change does not list it", p)
		}
	}
	for p := range landed {
		if !renamed[p] && !completed[p] {
			t.Errorf("%s is listed as renamed by the killed process, and neither it nor the completion wrote it", p)
		}
	}
	for i := range n {
		if p := fmt.Sprintf("N/n%05d.md", i); !renamed[p] && !completed[p] {
			t.Errorf("%s was renamed by no change listed", p)
		}
	}
	if extra := len(landed) - len(renamed); extra > 2 {
		t.Errorf("%d parts listed beyond the notes renamed at the kill: at most the writes under way then may be", extra)
	}
	// Undo both, newest first: every note as it was.
	for _, c := range []note.VaultChange{recovery[0], tags[0]} {
		if _, o := toolCall(t, again, "obsidian_undo", map[string]any{"id": c.ID}); o.Result == nil || o.Result.IsError {
			t.Fatalf("undo of %s: %s", c.Tool, brief(o))
		}
	}
	for p, want := range start {
		if strings.HasPrefix(p, "N/") {
			if data, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); string(data) != want {
				t.Fatalf("%s after the undos: %q, want %q", p, data, want)
			}
		}
	}
	t.Logf("%d notes: killed with %d renamed (%d parts listed); the completion wrote %d; both undone", n, len(renamed), len(landed), len(completed))
	return true
}

// serverCmd is a native server's command on dir, for a test that kills
// it.
func serverCmd(dir string, env []string) *exec.Cmd {
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), append_(env, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir)...)
	return cmd
}

func append_(a []string, more ...string) []string { return append(slices.Clone(a), more...) }

// history is obsidian_history's changes.
func history(t *testing.T, cs *mcp.ClientSession, args map[string]any) []note.VaultChange {
	t.Helper()
	d, o := toolCall(t, cs, "obsidian_history", args)
	if d == nil {
		t.Fatalf("obsidian_history: %s", brief(o))
	}
	raw, _ := json.Marshal(d["changes"])
	var out []note.VaultChange
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
