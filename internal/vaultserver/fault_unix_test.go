//go:build linux

package vaultserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/backend"
	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// Fault injection: a CLI that misbehaves every way the real one has been
// seen to, or a process can. Each case ends with its call answered, the server
// still answering, a clean exit at end of input, and no process or
// goroutine left behind. Linux only: processes are found through /proc.

// TestCLIFaults runs one tool call against each broken CLI.
func TestCLIFaults(t *testing.T) {
	cases := []struct {
		name string
		sc   obsidiantest.Scenario
		tool string
		// kind is the errorCode the call must fail with; "" accepts an
		// answer or any documented error (the CLI's output decides).
		kind    string
		message string
	}{
		{name: "hangs", sc: obsidiantest.Scenario{Hang: []string{"*"}}, tool: "obsidian_file_info", kind: "TIMEOUT"},
		{name: "killed mid-output", sc: obsidiantest.Scenario{Crash: "KILL"}, tool: "obsidian_file_info", kind: "CLI_ERROR", message: "signal KILL"},
		{name: "terminated mid-output", sc: obsidiantest.Scenario{Crash: "TERM"}, tool: "obsidian_read_note", kind: "CLI_ERROR", message: "signal TERM"},
		{name: "interrupted mid-output", sc: obsidiantest.Scenario{Crash: "INT"}, tool: "obsidian_append_to_note", kind: "CLI_ERROR", message: "signal INT"},
		{name: "prints 20 MB before its answer", sc: obsidiantest.Scenario{Flood: 20 << 20}, tool: "obsidian_file_info"},
		{name: "prints 20 MB to a read", sc: obsidiantest.Scenario{Flood: 20 << 20}, tool: "obsidian_read_note"},
		{name: "prints invalid UTF-8", sc: obsidiantest.Scenario{InvalidUTF8: true}, tool: "obsidian_read_note"},
		{name: "invalid UTF-8 in an error", sc: obsidiantest.Scenario{InvalidUTF8: true, Canned: &obsidiantest.Canned{Stdout: "Error: caf\xe9 \xff broke\n"}}, tool: "obsidian_file_info", kind: "CLI_ERROR"},
		{name: "exits 1 with nothing said", sc: obsidiantest.Scenario{Canned: &obsidiantest.Canned{Exit: 1}}, tool: "obsidian_file_info", kind: "CLI_ERROR"},
	}
	for _, tc := range cases {
		if (raceEnabled || !testenv.Stress()) && tc.sc.Flood > 4<<20 {
			// Still far over any answer; the race detector is slow, and
			// the size itself is the stress tier's.
			tc.sc.Flood = 4 << 20
		}
		t.Run(tc.name, func(t *testing.T) {
			f := obsidiantest.Install(t, obsidiantest.Scenario{})
			obsidiantest.Fixture(f)
			sc := tc.sc
			sc.Vault, sc.Log = f.Vault, f.Scenario().Log
			f.Set(sc)
			cfg := testConfig(f)
			cfg.Backend = backend.CLI
			cfg.Timeout = 2 * time.Second
			goroutines := runtime.NumGoroutine()

			s := startServer(t, cfg)
			s.initialize()
			args := map[string]any{"path": "Welcome.md"}
			if tc.tool == "obsidian_append_to_note" {
				args["content"] = "more"
			}
			line := s.call(tc.tool, args)
			if !utf8.ValidString(line) || !json.Valid([]byte(line)) {
				t.Fatalf("the answer is not valid UTF-8 JSON: %q", trunc(line))
			}
			if len(line) > 1<<20 {
				t.Errorf("a %d-byte answer: the CLI's flood reached the client", len(line))
			}
			r := decode(t, line)
			switch {
			case tc.kind != "" && (r.Error == nil || r.Error.Data["errorCode"] != tc.kind || !strings.Contains(r.Error.Message, tc.message)):
				t.Errorf("want %s mentioning %q, got %s", tc.kind, tc.message, trunc(line))
			case r.Error != nil && !slices.Contains(documentedCodes(), r.Error.Code):
				t.Errorf("undocumented error code: %s", trunc(line))
			}
			if pong := s.roundTrip(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`); decode(t, pong).Error != nil {
				t.Errorf("the server stopped answering: %s", pong)
			}
			stopServer(t, s)
			checkNoLeaks(t, f, goroutines)
		})
	}
}

// TestCLIGrandchildHoldsPipes: a CLI that exits but leaves a process
// holding stdout is answered at once, not when that process lets go.
func TestCLIGrandchildHoldsPipes(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	f := obsidiantest.Install(t, obsidiantest.Scenario{Grandchild: pidfile})
	obsidiantest.Fixture(f)
	cfg := testConfig(f)
	cfg.Backend = backend.CLI
	goroutines := runtime.NumGoroutine()
	s := startServer(t, cfg)
	s.initialize()
	if r := decode(t, s.call("obsidian_file_info", map[string]any{"path": "Welcome.md"})); r.Error != nil {
		t.Fatalf("file_info: %+v", r.Error)
	}
	stopServer(t, s)
	// What the CLI starts may outlive it by design (it can start the app);
	// the test's stand-in is ended here, and nothing else may be left.
	for _, pid := range processesOf(f.Bin) {
		obsidiantest.Kill(pid)
	}
	checkNoLeaks(t, f, goroutines)
}

// TestClientDisconnectsMidCall: the client goes away (stdin ends and
// nobody reads stdout) while a call waits on a hung CLI. The server cancels
// the call, stops the CLI and exits cleanly, without waiting the timeout.
func TestClientDisconnectsMidCall(t *testing.T) {
	f, cfg := hungCLI(t, 10*time.Minute)
	goroutines := runtime.NumGoroutine()

	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &obsidiantest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- serve(t.Context(), cfg, inR, outW, testLogger(logs, cfg.LogLevel), "test") }()
	startHungCall(t, f, inW)

	inW.Close()
	outR.Close()
	awaitServe(t, done, logs)
	inR.Close()
	outW.Close()
	if !strings.Contains(logs.String(), "client disconnected") {
		t.Errorf("the disconnect was not logged:\n%s", logs.String())
	}
	checkNoLeaks(t, f, goroutines)
}

// TestStopSignalMidCall: SIGINT/SIGTERM (the ctx main cancels) during a
// hung call stops the CLI and returns cleanly.
func TestStopSignalMidCall(t *testing.T) {
	f, cfg := hungCLI(t, 10*time.Minute)
	goroutines := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(t.Context())
	inR, inW := io.Pipe()
	logs := &obsidiantest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, inR, io.Discard, testLogger(logs, cfg.LogLevel), "test") }()
	startHungCall(t, f, inW)
	cancel()
	awaitServe(t, done, logs)
	inW.Close() // releases mcp-go's reader, blocked on input that never came
	checkNoLeaks(t, f, goroutines)
}

// TestCancelRunningAndQueuedCalls: with every worker busy on a hung CLI,
// one more call waits in the queue. Cancelling all of them stops every CLI
// process, the queued call never starts one, none is answered (MCP: a
// cancelled request gets no response), and the connection carries on.
func TestCancelRunningAndQueuedCalls(t *testing.T) {
	// Long enough to outlast the test, short enough that a queued call run
	// despite its cancellation fails the test instead of hanging it.
	f, cfg := hungCLI(t, 20*time.Second)
	goroutines := runtime.NumGoroutine()
	s := startServer(t, cfg)
	s.initialize()
	call := func(id int, path string) {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":%q}}}`, id, path))
	}
	for id := 1; id <= Workers; id++ {
		call(id, fmt.Sprintf("Running %d.md", id))
	}
	testenv.Eventually(t, 20*time.Second, "every worker to run a CLI", func() bool { return len(f.Calls()) == Workers })
	queued := Workers + 1
	call(queued, "Queued.md")
	cancelReq := func(id int) {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"test"}}`, id))
	}
	cancelReq(queued)
	for id := 1; id <= Workers; id++ {
		cancelReq(id)
	}
	if pong := s.roundTrip(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`); decode(t, pong).Error != nil {
		t.Errorf("ping after the cancellations: %s", pong)
	}
	s.in.Close()
	for {
		line, err := s.out.ReadString('\n')
		if line != "" {
			if id := decode(t, line).ID; string(id) != `"alive"` {
				t.Errorf("a cancelled call was answered: %s", line)
			}
		}
		if err != nil {
			break
		}
	}
	if err := <-s.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	s.done <- nil // for the harness's cleanup
	for _, argv := range f.Calls() {
		if strings.Contains(strings.Join(argv, " "), "Queued.md") {
			t.Errorf("the queued call ran after its cancellation: %q", argv)
		}
	}
	if n := strings.Count(s.logs.String(), "outcome=CANCELLED"); n != Workers {
		t.Errorf("%d running calls logged as cancelled, want %d:\n%s", n, Workers, s.logs.String())
	}
	if !strings.Contains(s.logs.String(), "request cancelled before it started") {
		t.Errorf("the queued call's cancellation was not logged:\n%s", s.logs.String())
	}
	checkNoLeaks(t, f, goroutines)
}

// hungCLI installs a fake CLI that never answers, and returns a CLI-backend
// configuration for it with the given timeout.
func hungCLI(t *testing.T, timeout time.Duration) (*obsidiantest.Fake, Config) {
	t.Helper()
	f := obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}})
	obsidiantest.Fixture(f)
	cfg := testConfig(f)
	cfg.Backend = backend.CLI
	cfg.Timeout = timeout
	return f, cfg
}

// startHungCall sends a tool call to the server's input and waits until
// its CLI process runs.
func startHungCall(t *testing.T, f *obsidiantest.Fake, in io.Writer) {
	t.Helper()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"Welcome.md"}}}`)
	testenv.Eventually(t, 20*time.Second, "the CLI to start", func() bool { return len(processesOf(f.Bin)) > 0 })
}

// awaitServe waits for Serve to return nil. The minute is a hang guard,
// far below the hung call's timeout: a server that waits for the call
// instead of stopping it fails here.
func awaitServe(t *testing.T, done <-chan error, logs *obsidiantest.Buffer) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the server kept waiting for the hung call\n%s", logs.String())
	}
}

// stopServer closes the server's input and waits for a clean exit.
func stopServer(t *testing.T, s *testServer) {
	t.Helper()
	s.in.Close()
	_, _ = io.Copy(io.Discard, s.out)
	if err := <-s.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	s.done <- nil // for the harness's cleanup
}

// checkNoLeaks waits up to ten seconds for every process of the fake CLI
// to end and the goroutine count to fall back to what it was before the
// server started, and fails the test otherwise.
func checkNoLeaks(t *testing.T, f *obsidiantest.Fake, goroutines int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if len(processesOf(f.Bin)) == 0 && runtime.NumGoroutine() <= goroutines {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pids := processesOf(f.Bin); len(pids) > 0 {
		t.Errorf("CLI processes left running: %v", pids)
		for _, pid := range pids {
			obsidiantest.Kill(pid)
		}
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines, %d before the server started:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
	}
}

// processesOf lists the live (not zombie) processes started as bin.
func processesOf(bin string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv0, _, _ := strings.Cut(string(cmdline), "\x00")
		if argv0 != bin {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// documentedCodes are the JSON-RPC codes in the README's error table.
func documentedCodes() []int {
	var codes []int
	for _, k := range errors.Kinds() {
		codes = append(codes, int(k.Code))
	}
	return codes
}
