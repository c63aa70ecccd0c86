// Package obsidiantest provides a fake `obsidian` executable for tests,
// behaving like the official CLI as docs/cli.md describes it, failures and
// quirks included, on a real vault folder: the small program ./fakecli,
// built once per test run, or the test binary itself re-executed under
// the name obsidian where there is no Go to build it. Nothing here needs
// Obsidian.
//
// A package that uses it calls Main from its TestMain, and Install in each
// test. Every test gets its own copy and scenario file, so tests may run in
// parallel.
package obsidiantest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// grandchildEnv, when set, makes the binary act as a grandchild that holds
// the inherited stdout open; its value is where its pid is written.
const grandchildEnv = "OBSIDIANTEST_GRANDCHILD_PIDFILE"

// Scenario configures one fake installation.
type Scenario struct {
	// Vault is the vault folder the fake works on.
	Vault string `json:"vault"`
	// VaultName, when set, is the only name vault=<name> accepts; any other
	// gets "Vault not found.".
	VaultName string `json:"vault_name,omitempty"`
	// ReportedPath is what `vault info=path` prints; "" means Vault.
	ReportedPath string `json:"reported_path,omitempty"`
	// NotRunning answers like a CLI whose app is closed: exit 1, stderr.
	NotRunning bool `json:"not_running,omitempty"`
	// Noise prints installer noise lines before every answer.
	Noise bool `json:"noise,omitempty"`
	// Hang makes these commands (or all, with "*") sleep instead of answering.
	Hang []string `json:"hang,omitempty"`
	// Grandchild starts a process that inherits stdout and lives on, writing
	// its pid to this file.
	Grandchild string `json:"grandchild,omitempty"`
	// ColdStart answers `Command "X" not found` to this many first calls.
	ColdStart int `json:"cold_start,omitempty"`
	// Invisible paths are answered "not found" by `file` although they exist,
	// to recreate the race between our existence check and create.
	Invisible []string `json:"invisible,omitempty"`
	// Flood prints this many bytes of filler lines before every answer.
	Flood int `json:"flood,omitempty"`
	// InvalidUTF8 puts bytes that are not UTF-8 around every answer.
	InvalidUTF8 bool `json:"invalid_utf8,omitempty"`
	// Crash, a signal name (KILL, TERM, INT), makes the fake print the
	// first half of its answer and then die by that signal.
	Crash string `json:"crash,omitempty"`
	// Canned, when set, is printed instead of running the command.
	Canned *Canned `json:"canned,omitempty"`
	// Log is where every invocation's argv is appended as a JSON line.
	Log string `json:"log"`
}

// Canned is a fixed answer.
type Canned struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Exit   int    `json:"exit"`
}

// Runner runs a package's tests; *testing.M is one. A package that must set
// up before its tests wraps m, so the fake still takes over first.
type Runner interface{ Run() int }

// Main runs the fake when the binary was started as obsidian, the grandchild
// when asked to, and the tests otherwise.
func Main(m Runner) {
	RunIfFake()
	// Under -race every process sleeps a second at exit to flush reports
	// (atexit_sleep_ms); fakes run thousands of times, so children skip it.
	// GORACE is read at start-up, so this only affects the fakes we start.
	if os.Getenv("GORACE") == "" {
		_ = os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	cleanup := buildFake()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// RunIfFake acts as the fake, or as its grandchild, when the process was
// started as one, and exits; it returns otherwise. The test binary and
// the small fake (./fakecli) both start with it.
func RunIfFake() {
	if os.Getenv(grandchildEnv) != "" {
		// The fake that started it wrote its pid (writePID).
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if isFake(os.Args[0]) {
		os.Exit(runFake(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// FakeEnv names a fake CLI built beforehand (./fakecli), which Install
// links in place of the test binary. Main builds one when go can; where
// it cannot (the Windows tests under Wine have no Go) the test binary
// is the fake, as it always could be.
const FakeEnv = "OBSIDIAN_MCP_TEST_FAKE"

// buildFake builds ./fakecli for this run unless FakeEnv names one, and
// sets FakeEnv to it; it returns what removes it. The fake is started
// thousands of times: the test binary, with every package of the server
// linked in, spent ~16 ms of CPU a start on its packages' set-up (mcp-go's
// JSON Schema compiler, for one), the small one ~3 ms.
func buildFake() (cleanup func()) {
	if os.Getenv(FakeEnv) != "" {
		return func() {}
	}
	dir, err := os.MkdirTemp("", "obsidiantest-fake")
	if err != nil {
		return func() {}
	}
	bin := filepath.Join(dir, "obsidian")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin, "github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest/fakecli").CombinedOutput()
	if err != nil {
		// No go (or no module here): the test binary serves, slower.
		_ = os.RemoveAll(dir)
		if _, lookErr := exec.LookPath("go"); lookErr == nil {
			fmt.Fprintf(os.Stderr, "obsidiantest: the small fake did not build, the test binary is the fake: %v\n%s", err, out)
		}
		return func() {}
	}
	_ = os.Setenv(FakeEnv, bin)
	return func() { _ = os.RemoveAll(dir) }
}

func isFake(arg0 string) bool {
	base := strings.ToLower(filepath.Base(arg0))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".com")
	return base == "obsidian"
}

// Fake is one installed fake CLI.
type Fake struct {
	// Bin is the executable's absolute path, for Client.Bin.
	Bin string
	// Vault is the vault folder.
	Vault string
	dir   string
	sc    Scenario
	t     testing.TB
}

// Install puts a fake obsidian in a temporary folder. An empty sc.Vault gets
// a fresh temporary vault.
func Install(t testing.TB, sc Scenario) *Fake {
	t.Helper()
	dir := t.TempDir()
	exe := os.Getenv(FakeEnv)
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			t.Fatal(err)
		}
	}
	name := "obsidian"
	if runtime.GOOS == "windows" {
		// As Obsidian installs its CLI there: Obsidian.com, the console
		// program beside the app (the client refuses Obsidian.exe, whose
		// output is lost).
		name += ".com"
	}
	bin := filepath.Join(dir, name)
	if err := os.Link(exe, bin); err != nil {
		copyFile(t, exe, bin)
	}
	if sc.Vault == "" {
		sc.Vault = t.TempDir()
	}
	if sc.Log == "" {
		sc.Log = filepath.Join(dir, "calls.jsonl")
	}
	f := &Fake{Bin: bin, Vault: sc.Vault, dir: dir, t: t}
	f.Set(sc)
	// A fake told to hang outlives a server killed mid-call (Windows ends
	// a process, not its children), and a running program's file cannot
	// be removed there: the folder's removal would fail the test. Ended
	// first (cleanups run last registered first).
	t.Cleanup(func() { endHung(dir) })
	return f
}

// hungDir is the folder, beside the fake, where a hanging fake leaves a
// file named for its pid.
const hungDir = "hung"

// endHung ends the fakes installed in dir that still hang.
func endHung(dir string) {
	entries, _ := os.ReadDir(filepath.Join(dir, hungDir))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			Kill(pid)
		}
	}
}

// Scenario returns the current scenario.
func (f *Fake) Scenario() Scenario { return f.sc }

// Set replaces the scenario; the next invocation sees it.
func (f *Fake) Set(sc Scenario) {
	f.t.Helper()
	data, err := json.Marshal(sc)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "scenario.json"), data, 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.sc = sc
}

// Update changes the scenario with fn.
func (f *Fake) Update(fn func(*Scenario)) {
	sc := f.sc
	fn(&sc)
	f.Set(sc)
}

// Calls returns the argv of every invocation so far, in order.
func (f *Fake) Calls() [][]string {
	f.t.Helper()
	calls, err := ReadCalls(f.sc.Log)
	if err != nil {
		f.t.Fatal(err)
	}
	return calls
}

// ReadCalls reads a fake's call log (Scenario.Log): the argv of every
// invocation so far, in order; none if the log does not exist yet.
func ReadCalls(log string) ([][]string, error) {
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var calls [][]string
	// The fake creates the log before it writes its line (one O_APPEND
	// write, so a line is never seen in part), so a poll can find the file
	// empty: that is no call yet, not a bad line.
	for line := range strings.Lines(string(data)) {
		var argv []string
		if err := json.Unmarshal([]byte(line), &argv); err != nil {
			return nil, fmt.Errorf("bad call log line %q: %w", line, err)
		}
		calls = append(calls, argv)
	}
	return calls, nil
}

// ResetCalls forgets the calls so far.
func (f *Fake) ResetCalls() { _ = os.Remove(f.sc.Log) }

// RunCommand runs cmd to the end and returns its stdout, stderr and exit
// status, as a user at a shell would see them; failing to start it fails t.
func RunCommand(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// WriteNote writes a note into the vault, making folders.
func (f *Fake) WriteNote(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.Vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// Note reads a note from the vault.
func (f *Fake) Note(rel string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(f.Vault, filepath.FromSlash(rel)))
	return string(data), err == nil
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// writePID writes pid to file whole, under another name and renamed: a
// waiter that sees the file sees the pid (CI once aborted the call between
// os.WriteFile's create and its write, and the file stayed empty).
func writePID(file string, pid int) {
	tmp := file + ".tmp"
	if os.WriteFile(tmp, []byte(itoa(pid)), 0o644) == nil {
		_ = os.Rename(tmp, file)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Buffer is a bytes.Buffer that goroutines may write to and read at once:
// a process's stderr or a server's logs, read while it still runs.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
