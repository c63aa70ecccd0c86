package vaultserver

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

var update = flag.Bool("update", false, "rewrite golden transcripts and README sections")

// transcripts are golden stdio sessions: each "->" line is sent after the
// previous answer arrived, and the "<-" lines are the answers, normalised.
var transcripts = []struct {
	name  string
	setup func(*obsidiantest.Fake, *Config)
}{
	{name: "lifecycle"},
	{name: "notes"},
	{name: "errors"},
	{name: "not_running", setup: func(f *obsidiantest.Fake, _ *Config) {
		f.Update(func(sc *obsidiantest.Scenario) { sc.NotRunning = true })
	}},
	{name: "vault_not_found", setup: func(f *obsidiantest.Fake, c *Config) {
		f.Update(func(sc *obsidiantest.Scenario) { sc.VaultName = "Work" })
		c.Vault = "Personal"
	}},
	{name: "timeout", setup: func(f *obsidiantest.Fake, c *Config) {
		f.Update(func(sc *obsidiantest.Scenario) { sc.Hang = []string{"read", "file"} })
		// Only the commands that hang get the short limit: the others (the
		// vault's folder is asked with `vault`) keep the default, so a slow
		// start of the fake under -race on a busy machine cannot time them
		// out too (CI once saw `vault` miss 200 ms).
		c.CommandTimeouts = map[string]time.Duration{"read": 200 * time.Millisecond, "file": 200 * time.Millisecond}
	}},
	{name: "result_mode", setup: func(_ *obsidiantest.Fake, c *Config) { c.ToolErrors = ToolErrorsResult }},
	{name: "modern_protocol"},
	{name: "batches_2025_03_26"},
	{name: "batches_refused"},
	{name: "resources"},
	{name: "read_side"},
	{name: "edits"},
	{name: "read_only", setup: func(_ *obsidiantest.Fake, c *Config) { c.ReadOnly = true }},
	{name: "folder_policy", setup: func(f *obsidiantest.Fake, c *Config) {
		// "Plan" is Projects/Plan.md's name and Archive/Plan.md's: with
		// Archive hidden by the vault's .mcpignore, it is no longer
		// ambiguous.
		f.WriteNote("Private/Secret.md", "# Plan B\nstep one, in secret\n")
		f.WriteNote(".mcpignore", "Archive/\n")
		deny, _ := policy.ParseList("--deny-paths", "Private/**")
		write, _ := policy.ParseList("--write-paths", "Daily/**")
		c.Policy = &policy.Policy{Deny: deny, Write: write}
	}},
	{name: "read_side_native", setup: func(f *obsidiantest.Fake, c *Config) {
		c.Backend, c.VaultPath, c.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	}},
	{name: "read_side_remote", setup: func(f *obsidiantest.Fake, _ *Config) {
		// The app's vault is on a file system this machine cannot open:
		// the read side goes through the CLI's own commands.
		f.Update(func(sc *obsidiantest.Scenario) { sc.ReportedPath = "/nonexistent/remote/vault" })
	}},
	{name: "cli_not_found", setup: func(_ *obsidiantest.Fake, c *Config) { c.ObsidianBin = "/nonexistent/bin/obsidian" }},
	{name: "permission_denied", setup: func(f *obsidiantest.Fake, _ *Config) {
		f.Update(func(sc *obsidiantest.Scenario) {
			sc.Canned = &obsidiantest.Canned{Stdout: "Error: EACCES: permission denied, unlink '/vault/Welcome.md'\n"}
		})
	}},
	{name: "native", setup: func(f *obsidiantest.Fake, c *Config) {
		// No CLI at all: everything comes from the folder.
		c.Backend, c.VaultPath, c.ObsidianBin = backend.Native, f.Vault, "/nonexistent/bin/obsidian"
	}},
	{name: "auto_fallback", setup: func(f *obsidiantest.Fake, c *Config) {
		f.Update(func(sc *obsidiantest.Scenario) { sc.NotRunning = true })
		c.VaultPath = f.Vault
	}},
	{name: "cli_error", setup: func(f *obsidiantest.Fake, _ *Config) {
		f.Update(func(sc *obsidiantest.Scenario) {
			sc.Canned = &obsidiantest.Canned{Stdout: "Your Obsidian installer is out of date. Please download the latest installer.\nError: Something unexpected happened.\n"}
		})
	}},
}

func TestTranscripts(t *testing.T) {
	t.Parallel()
	for _, tr := range transcripts {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			f := obsidiantest.Install(t, obsidiantest.Scenario{})
			obsidiantest.Fixture(f)
			cfg := testConfig(f)
			if tr.setup != nil {
				tr.setup(f, &cfg)
			}
			file := filepath.Join("testdata", "transcripts", tr.name+".txt")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s := startServer(t, cfg)
			var got []string
			for _, line := range strings.Split(string(data), "\n") {
				req, ok := strings.CutPrefix(line, "-> ")
				if !ok {
					continue
				}
				got = append(got, line)
				if resp := s.roundTrip(req); resp != "" {
					got = append(got, "<- "+obsidiantest.Normalise(resp))
				}
			}
			obsidiantest.CheckTranscript(t, file, string(data), got, *update, "go test ./internal/vaultserver -update")
		})
	}
}

// TestAllAnsweredBeforeEOF: 30 tool calls written at once, then stdin
// closes. mcp-go alone drops queued calls at EOF; every one must be answered.
func TestAllAnsweredBeforeEOF(t *testing.T) {
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	obsidiantest.Fixture(f)
	for run := 0; run < 3; run++ {
		var b strings.Builder
		b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i := 2; i <= 31; i++ {
			tool, args := "obsidian_file_info", `{"path":"Welcome.md"}`
			if i%2 == 0 {
				tool, args = "obsidian_read_note", `{"name":"welcome"}`
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", i, tool, args)
		}
		lines := serveAll(t, testConfig(f), b.String())
		var ids []int
		for _, line := range lines {
			r := decode(t, line)
			var id int
			if err := json.Unmarshal(r.ID, &id); err != nil {
				t.Fatalf("response without a numeric id: %s", line)
			}
			if r.Error != nil || r.Result == nil || r.Result.IsError {
				t.Errorf("id %d failed: %s", id, line)
			}
			ids = append(ids, id)
		}
		sort.Ints(ids)
		want := make([]int, 31)
		for i := range want {
			want[i] = i + 1
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("run %d: answered ids %v, want 1..31 exactly once", run, ids)
		}
	}
}

// TestExitNotification: requests before exit are answered, later ones are
// not read, and the server returns cleanly.
func TestExitNotification(t *testing.T) {
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	obsidiantest.Fixture(f)
	input := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Welcome.md"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"exit"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	lines := serveAll(t, testConfig(f), input)
	var ids []string
	for _, l := range lines {
		ids = append(ids, string(decode(t, l).ID))
	}
	sort.Strings(ids)
	if !slices.Equal(ids, []string{"1", "2"}) {
		t.Errorf("answered %v, want 1 and 2 only", ids)
	}
}

// TestConcurrentCalls: many calls in flight at once over one connection,
// successes and failures mixed; each gets exactly its own answer.
func TestConcurrentCalls(t *testing.T) {
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	obsidiantest.Fixture(f)
	const n = 120
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"Welcome.md"}}}`+"\n", i)
		case 1:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"missing-%d.md"}}}`+"\n", i, i)
		case 2:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"s%d","method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"name":"Plan"}}}`+"\n", i)
		}
	}
	lines := serveAll(t, testConfig(f), b.String())
	if len(lines) != n {
		t.Fatalf("%d answers for %d calls", len(lines), n)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		r := decode(t, l)
		id := string(r.ID)
		if seen[id] {
			t.Errorf("id %s answered twice", id)
		}
		seen[id] = true
		switch {
		case strings.HasPrefix(id, `"s`):
			if r.Error == nil || r.Error.Code != -32004 || len(r.Error.Data["candidates"].([]any)) != 2 {
				t.Errorf("ambiguous read %s: %s", id, l)
			}
		case r.Error != nil:
			var num int
			_ = json.Unmarshal(r.ID, &num)
			if r.Error.Code != -32003 || !strings.Contains(r.Error.Message, fmt.Sprintf("missing-%d.md", num)) {
				t.Errorf("missing read %s got another call's answer: %s", id, l)
			}
		default:
			if r.Result.Content[0].Text != "# Welcome\n\nStart at [[Projects/Plan]].\n" {
				t.Errorf("read %s: %s", id, l)
			}
		}
	}
}

// TestLogsStayOffStdout: at debug level every line on stdout is JSON-RPC,
// and the logs name tool, duration and outcome without note bodies.
func TestLogsStayOffStdout(t *testing.T) {
	f := obsidiantest.Install(t, obsidiantest.Scenario{Noise: true})
	obsidiantest.Fixture(f)
	s := startServer(t, testConfig(f))
	s.initialize()
	secret := "TOP-SECRET-BODY"
	for _, resp := range []string{
		s.call("obsidian_create_note", map[string]any{"path": "Secret.md", "content": secret}),
		s.call("obsidian_append_to_note", map[string]any{"path": "Secret.md", "content": secret}),
		s.call("obsidian_read_note", map[string]any{"path": "Nope.md"}),
	} {
		var m map[string]any
		if json.Unmarshal([]byte(resp), &m) != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", resp)
		}
	}
	logs := s.logs.String()
	for _, want := range []string{"tool=obsidian_create_note", "outcome=ok", "outcome=FILE_NOT_FOUND", "duration=", "obsidian cli", "content=<15 bytes>"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q", want)
		}
	}
	if strings.Contains(logs, secret) {
		t.Error("a note body reached the logs")
	}
}
