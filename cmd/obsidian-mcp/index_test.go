package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// These tests run real server processes on one vault and look at the
// search index they keep between runs (in the user's cache folder, which
// TestMain points at a folder of its own: indexFolder): a
// restart reads the saved index and only the notes that changed; several
// servers share it; a damaged one, or one cut by a kill, is never used.

// indexVault writes n notes; those whose number is a multiple of 50 hold
// the word "zebrafinch".
func indexVault(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		word := "sparrow"
		if i%50 == 0 {
			word = "zebrafinch"
		}
		writeNote(t, dir, fmt.Sprintf("F%d/n%05d.md", i%10, i), fmt.Sprintf("---\ntags: [bird]\n---\n# Note %d\nA %s sat on the fence, note %d.\n", i, word, i))
	}
	// Dated back, as notes in use are: a file written in the last seconds
	// is read again on every start (it may change within its timestamp).
	old := time.Now().Add(-time.Hour)
	_ = filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	return dir
}

// indexFolder is where a server keeps the search index of the vault dir
// by default: a folder named by a hash of the vault's path in the cache.
func indexFolder(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(os.Getenv("XDG_CACHE_HOME"), "obsidian-mcp", "index", hex.EncodeToString(sum[:8]))
}

func writeNote(t *testing.T, dir, p, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// found is the sorted paths a search answers.
func found(t *testing.T, cs *mcp.ClientSession, query string) []string {
	t.Helper()
	var out []string
	args := map[string]any{"query": query, "limit": 100}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d, o := toolCall(t, cs, "obsidian_search_notes", args)
		if d == nil {
			t.Fatalf("search %q: %s", query, brief(o))
		}
		if d["partial"] != nil {
			// The index was still being built (another server builds it,
			// on a slow machine): the answer says so and to ask again.
			if time.Now().After(deadline) {
				t.Fatalf("search %q: still partial after 2 minutes: %s", query, brief(o))
			}
			out, args = nil, map[string]any{"query": query, "limit": 100}
			continue
		}
		results, _ := d["results"].([]any)
		for _, r := range results {
			if m, ok := r.(map[string]any); ok {
				out = append(out, fmt.Sprint(m["path"]))
			}
		}
		next, _ := d["next_cursor"].(string)
		if next == "" {
			break
		}
		args["cursor"] = next
	}
	slices.Sort(out)
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func zebras(n int, except ...int) []string {
	var out []string
	for i := 0; i < n; i += 50 {
		if !slices.Contains(except, i) {
			out = append(out, fmt.Sprintf("F%d/n%05d.md", i%10, i))
		}
	}
	slices.Sort(out)
	return out
}

func TestIndexKeptAcrossRestarts(t *testing.T) {
	t.Parallel()
	const n = 600
	dir := indexVault(t, n)
	snapshot := filepath.Join(indexFolder(t, dir), "snapshot")
	env := []string{"OBSIDIAN_MCP_LOG_LEVEL=debug"}

	first, _ := goSDK(t, time.Minute, append([]string{"OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH=" + dir}, env...)...)
	if got, want := found(t, first, "zebrafinch"), zebras(n); !slices.Equal(got, want) {
		t.Fatalf("first search found %v, want %v", got, want)
	}
	testenv.Eventually(t, time.Minute, "the index saved", func() bool { return fileExists(snapshot) })
	_ = first.Close()

	// While no server runs, an editor changes the vault.
	writeNote(t, dir, "F1/n00001.md", "Now a zebrafinch here too.\n")
	if err := os.Remove(filepath.Join(dir, "F0", "n00050.md")); err != nil {
		t.Fatal(err)
	}
	writeNote(t, dir, "New/zebra.md", "zebrafinch, new note\n")
	want := append(zebras(n, 50), "F1/n00001.md", "New/zebra.md")
	slices.Sort(want)

	second, stderr := goSDK(t, time.Minute, append([]string{"OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH=" + dir}, env...)...)
	if got := found(t, second, "zebrafinch"); !slices.Equal(got, want) {
		t.Errorf("after the restart found %v, want %v", got, want)
	}
	// Phrases, from the positions the snapshot held (moved to a scratch
	// file of the index folder) and from those of the notes read since.
	if got := found(t, second, `"zebrafinch sat"`); !slices.Equal(got, zebras(n, 50)) {
		t.Errorf(`after the restart "zebrafinch sat" found %v, want %v`, got, zebras(n, 50))
	}
	if got := found(t, second, `"zebrafinch here"`); !slices.Equal(got, []string{"F1/n00001.md"}) {
		t.Errorf(`after the restart "zebrafinch here" found %v, want the note changed`, got)
	}
	// The scratch file has no name in the folder, even while it is open;
	// Windows' classic delete semantics (FAT, Wine, NTFS before POSIX
	// deletes) keep the name of a file deleted while open until it is
	// closed, so there it is looked for once the server is gone.
	if runtime.GOOS == "windows" {
		_ = second.Close()
	}
	if names, err := os.ReadDir(filepath.Dir(snapshot)); err == nil {
		for _, e := range names {
			if strings.HasPrefix(e.Name(), "positions-") {
				t.Errorf("%s left in the index folder", e.Name())
			}
		}
	}
	_ = second.Close()
	if log := stderr.String(); !strings.Contains(log, "search index loaded") || strings.Contains(log, "afresh") {
		t.Errorf("the restart did not use the saved index:\n%s", log)
	}

	// Damaged on disk: not used, rebuilt, and the answers are the same.
	data, err := os.ReadFile(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(snapshot, data, 0o644); err != nil {
		t.Fatal(err)
	}
	third, stderr := goSDK(t, time.Minute, append([]string{"OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH=" + dir}, env...)...)
	if got := found(t, third, "zebrafinch"); !slices.Equal(got, want) {
		t.Errorf("with a damaged index found %v, want %v", got, want)
	}
	if log := stderr.String(); !strings.Contains(log, "saved search index is damaged; building it afresh") {
		t.Errorf("a damaged index went unreported:\n%s", log)
	}
}

// TestIndexSharedBySeveralServers: four servers start on one vault at
// once and search at once, while an editor changes notes between rounds.
// One of them builds the index, the others wait for it and load it; each
// answer is right; the saved index is never torn (a server started last
// loads it and answers right).
func TestIndexSharedBySeveralServers(t *testing.T) {
	t.Parallel()
	const n, procs = 1500, 4 // over 1,024 notes the index builds beside the calls
	dir := indexVault(t, n)
	snapshot := filepath.Join(indexFolder(t, dir), "snapshot")
	sessions := make([]*mcp.ClientSession, procs)
	logs := make([]fmt.Stringer, procs)
	for p := range procs {
		sessions[p], logs[p] = goSDK(t, time.Minute, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir)
	}
	want := zebras(n)
	for round := range 4 {
		if round > 0 {
			// Enough changes for the servers to save again (2% of the vault).
			for i := range 40 {
				writeNote(t, dir, fmt.Sprintf("R%d/z%02d.md", round, i), fmt.Sprintf("zebrafinch of round %d\n", round))
				want = append(want, fmt.Sprintf("R%d/z%02d.md", round, i))
			}
			slices.Sort(want)
		}
		var wg sync.WaitGroup
		for p := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := found(t, sessions[p], "zebrafinch"); !slices.Equal(got, want) {
					t.Errorf("round %d, server %d found %d notes, want %d", round, p, len(got), len(want))
				}
			}()
		}
		wg.Wait()
		if round == 0 {
			testenv.Eventually(t, time.Minute, "the index saved", func() bool { return fileExists(snapshot) })
			built := 0
			for _, l := range logs {
				built += strings.Count(l.String(), "search index built")
			}
			if built != 1 {
				t.Errorf("%d servers built the index, want one; their logs:\n%v", built, logs)
			}
		}
	}
	for _, cs := range sessions {
		_ = cs.Close()
	}
	last, stderr := goSDK(t, time.Minute, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir, "OBSIDIAN_MCP_LOG_LEVEL=debug")
	if got := found(t, last, "zebrafinch"); !slices.Equal(got, want) {
		t.Errorf("a server started last found %d notes, want %d", len(got), len(want))
	}
	if log := stderr.String(); !strings.Contains(log, "search index loaded") || strings.Contains(log, "afresh") {
		t.Errorf("the server started last did not use the saved index:\n%s", log)
	}
	_ = last.Close()
	if tmp, _ := filepath.Glob(filepath.Join(indexFolder(t, dir), "*.tmp")); len(tmp) > 0 {
		t.Errorf("servers that exited left %v", tmp)
	}
}

// TestIndexKilledWhileSaving: a server killed while it saves the index it
// just built leaves at most a temporary file, never a torn index; the next
// server answers right and clears the leftover when it saves.
func TestIndexKilledWhileSaving(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	untilKillLands(t, 750, 24000, "the index was always saved before the kill could land", func(notes int) bool {
		return killWhileSaving(t, notes)
	})
}

// killWhileSaving runs one round on a vault of n notes. It reports false
// when the save was over before the test saw it begin (the caller tries a
// larger vault, whose save takes longer).
func killWhileSaving(t *testing.T, n int) bool {
	dir := indexVault(t, n)
	index := indexFolder(t, dir)
	cmd, cs := killable(t, dir)
	defer cs.Close()
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obsidian_search_notes", Arguments: map[string]any{"query": "zebrafinch"}})
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		if tmp, _ := filepath.Glob(filepath.Join(index, "snapshot-*.tmp")); len(tmp) > 0 {
			break
		}
		if fileExists(filepath.Join(index, "snapshot")) {
			_ = cmd.Process.Kill()
			return false
		}
		if time.Now().After(deadline) {
			t.Fatal("no index saved within a minute")
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()
	if fileExists(filepath.Join(index, "snapshot")) {
		t.Log("the kill landed after the snapshot was in place")
	}
	next, stderr := goSDK(t, time.Minute, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir, "OBSIDIAN_MCP_LOG_LEVEL=debug")
	if got, want := found(t, next, "zebrafinch"), zebras(n); !slices.Equal(got, want) {
		t.Errorf("after the kill found %d notes, want %d", len(got), len(want))
	}
	testenv.Eventually(t, time.Minute, "the index saved and the leftover cleared", func() bool {
		tmp, _ := filepath.Glob(filepath.Join(index, "snapshot-*.tmp"))
		return len(tmp) == 0 && fileExists(filepath.Join(index, "snapshot"))
	})
	if strings.Contains(stderr.String(), "damaged") {
		t.Errorf("a torn index was found:\n%s", stderr)
	}
	t.Logf("%d notes: killed while the index was being saved; the restart found every note", n)
	return true
}

// TestIndexOfReadOnlyVault: a server told not to write the vault keeps
// its index in the user's cache folder, and nothing in the vault.
func TestIndexOfReadOnlyVault(t *testing.T) {
	t.Parallel()
	dir := indexVault(t, 100)
	cache := t.TempDir()
	cs, _ := goSDK(t, time.Minute, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir, "OBSIDIAN_MCP_READ_ONLY=true", "XDG_CACHE_HOME="+cache, "LOCALAPPDATA="+cache)
	if got := found(t, cs, "zebrafinch"); len(got) != 2 {
		t.Errorf("found %v", got)
	}
	testenv.Eventually(t, time.Minute, "the index saved in the cache folder", func() bool {
		m, _ := filepath.Glob(filepath.Join(cache, "obsidian-mcp", "index", "*", "snapshot"))
		return len(m) == 1
	})
	_ = cs.Close()
	if fileExists(filepath.Join(dir, ".obsidian-mcp")) {
		t.Error("a read-only server wrote its folder into the vault")
	}
}

// TestSearchDuringFirstBuild: on a vault without a saved index, a search
// that arrives while the index is built is answered from the notes read so
// far, marked partial, once its patience is out; a client that asked for
// progress gets notifications/progress meanwhile.
func TestSearchDuringFirstBuild(t *testing.T) {
	testenv.StressOnly(t)
	t.Parallel()
	for n := 8000; ; n *= 2 {
		if searchDuringBuild(t, n) {
			return
		}
		if n >= 32000 {
			t.Fatal("the index was always built before the first search came")
		}
	}
}

// searchDuringBuild runs one round on a vault of n notes. It reports false
// when the whole index was there for the first search (the caller tries a
// larger vault).
func searchDuringBuild(t *testing.T, n int) bool {
	dir := indexVault(t, n)
	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params)
		mu.Unlock()
	}}
	cs, _ := goSDKWith(t, time.Minute, opts, "OBSIDIAN_MCP_BACKEND=native", "OBSIDIAN_VAULT_PATH="+dir,
		"OBSIDIAN_MCP_INDEX_DIR=off", "OBSIDIAN_MCP_SEARCH_PATIENCE=1ms")
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "obsidian_search_notes", Arguments: map[string]any{"query": "zebrafinch"}}
	params.SetProgressToken("first-search")
	o := goOutcome(cs.CallTool(t.Context(), params))
	d, err := data(o)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := d["partial"].(map[string]any)
	if part == nil && d["total"] == float64(len(zebras(n))) {
		return false
	}
	if part == nil || part["notes"] != float64(n) || part["indexed"].(float64) >= float64(n) || part["note"] == "" {
		t.Errorf("the first search: partial %v; want a part of %d notes", d["partial"], n)
	}
	// The server writes the progress before the answer, but the Go SDK
	// hands notifications to their handler on a goroutine of their own,
	// after the answer has been returned to CallTool at times (CI met it).
	testenv.Eventually(t, time.Minute, "a progress notification handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) > 0
	})
	mu.Lock()
	if progress[0].ProgressToken != "first-search" || progress[0].Total != float64(n) {
		t.Errorf("progress notifications %v; want some for first-search, out of %d", progress, n)
	}
	mu.Unlock()
	testenv.Eventually(t, time.Minute, "the whole index", func() bool {
		d, _ := toolCall(t, cs, "obsidian_search_notes", map[string]any{"query": "zebrafinch"})
		return d != nil && d["partial"] == nil && d["total"] == float64(len(zebras(n)))
	})
	return true
}
