package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// These tests run the real binary, built once with a version stamped in
// through -ldflags, as an MCP client would start it.

var binary string

// serverEnv names a server binary built beforehand with
// -ldflags "-X main.version=9.9.9-test", used instead of building one.
const serverEnv = "OBSIDIAN_MCP_TEST_SERVER"

// helpers are the roles this test binary takes instead of testing when a
// test starts it with one of these variables set (an outside writer, say);
// the value is the role's argument.
var helpers = map[string]func(arg string) int{outsideEnv: runOutsideWriter}

func TestMain(m *testing.M) {
	for env, run := range helpers {
		if spec := os.Getenv(env); spec != "" {
			os.Exit(run(spec))
		}
	}
	obsidiantest.Main(&binaryMain{m})
}

// binaryMain builds the server before the tests run, so obsidiantest.Main
// can still take over when this test binary is started as the fake CLI.
type binaryMain struct{ m *testing.M }

func (b *binaryMain) Run() int {
	dir, err := os.MkdirTemp("", "obsidian-mcp-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Read before the user folders move: Go's build cache lives in the
	// user's cache folder, and a build that found it empty would compile
	// everything from the runtime up (50 s a run, measured).
	goCaches = goCacheEnv()
	if dirs, err := testenv.NewUserDirs(); err == nil {
		dirs.Apply(os.Setenv) // journal keys and saved indexes of the tests' own
		defer dirs.Remove()
	}
	binary = filepath.Join(dir, "obsidian-mcp")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	if built := os.Getenv(serverEnv); built != "" {
		// Built beforehand, as this, where the tests run without Go
		// (scripts/wine runs them under Wine). Absolute as the server
		// sees itself (on Windows with its drive).
		if binary, err = filepath.Abs(built); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	} else if out, err := goCommand("build", "-ldflags", "-X main.version=9.9.9-test", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the server: %v\n%s", err, out)
		return 1
	}
	installClients()
	testenv.MoreAtOnce()
	return b.m.Run()
}

// goCaches holds GOCACHE and GOMODCACHE as the developer's go has them,
// set by TestMain before the tests' user folders of their own replace
// the ones go finds them by.
var goCaches []string

func goCacheEnv() []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		return nil // no go: the server is built beforehand (serverEnv)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil
	}
	return []string{"GOCACHE=" + lines[0], "GOMODCACHE=" + lines[1]}
}

// goCommand is go with args, using the developer's build and module
// caches.
func goCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), goCaches...)
	return cmd
}

// hungCLI installs a fake CLI that never answers and leaves a grandchild
// holding its pipes; the grandchild writes its pid to the returned file.
func hungCLI(t *testing.T) (*obsidiantest.Fake, string) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	return obsidiantest.Install(t, obsidiantest.Scenario{Hang: []string{"*"}, Grandchild: pidfile}), pidfile
}

// awaitCleanExit waits up to limit for cmd to exit with status 0 after
// what happened to it.
func awaitCleanExit(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder, limit time.Duration, after string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after %s: %v (stderr %s)", after, err, stderr.String())
		}
	case <-time.After(limit):
		// Killed and waited for, its log can be read whole, and says
		// what it was waiting for.
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after %s (its log: %s)", limit, after, stderr.String())
	}
}

func start(t *testing.T, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader, *strings.Builder) {
	t.Helper()
	cmd, stdin, stdout, stderr := startRaw(t, env...)
	return cmd, stdin, bufio.NewReader(stdout), stderr
}

// startRaw is start with the client's end of stdout as it is, for tests
// that close it.
func startRaw(t *testing.T, env ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stdin, stdout, &stderr
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "--version").Output()
	if err != nil || string(out) != "obsidian-mcp 9.9.9-test\n" {
		t.Errorf("--version = %q, %v", out, err)
	}
	out, err = exec.Command(binary, "--help").Output()
	if err != nil || !strings.Contains(string(out), "OBSIDIAN_MCP_TIMEOUT") {
		t.Errorf("--help = %q, %v", out, err)
	}
	_, stderr, code := obsidiantest.RunCommand(t, exec.Command(binary, "--tool-errors", "maybe"))
	if code != 2 || !strings.Contains(stderr, "--tool-errors") {
		t.Errorf("bad flag: exit %d, stderr %q; want exit 2 naming the flag", code, stderr)
	}
}

// TestDoctorCommand: `obsidian-mcp doctor` is a command, not the server: it
// reports on stdout and its exit status says whether the server could work.
func TestDoctorCommand(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(binary, append([]string{"doctor"}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+t.TempDir(), "HOME="+t.TempDir())
		return obsidiantest.RunCommand(t, cmd)
	}
	out, errOut, code := run("--backend", "native", "--vault-path", vault)
	self, _ := json.Marshal(binary)
	if code != 0 || errOut != "" || !strings.Contains(out, "✓ obsidian-mcp 9.9.9-test") || !strings.Contains(out, "✓ ready") ||
		!strings.Contains(out, `"command": `+string(self)) {
		t.Errorf("native doctor: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	out, _, code = run()
	if code != 1 || !strings.Contains(out, "✗ Obsidian CLI not found") || !strings.Contains(out, "✗ not ready") {
		t.Errorf("bare doctor with no CLI: exit %d, stdout:\n%s", code, out)
	}
}

// TestEOFAnswersEverything: a client writes its requests, closes stdin and
// reads; the process answers all of them on stdout, logs only on stderr,
// and exits 0.
func TestEOFAnswersEverything(t *testing.T) {
	t.Parallel()
	f := obsidiantest.Install(t, obsidiantest.Scenario{})
	f.WriteNote("A.md", "alpha")
	cmd, stdin, stdout, stderr := start(t, "OBSIDIAN_BIN="+f.Bin)
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obsidian_read_note","arguments":{"path":"A.md"}}}`+"\n", i)
	}
	// The last line lacks its newline: it must still be answered.
	b.WriteString(`{"jsonrpc":"2.0","id":31,"method":"ping"}`)
	if _, err := io.WriteString(stdin, b.String()); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	seen := map[int]bool{}
	for {
		line, err := stdout.ReadString('\n')
		if err == io.EOF {
			break
		}
		var r struct {
			ID    int             `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error != nil {
			t.Fatalf("bad stdout line %q: %v", line, err)
		}
		seen[r.ID] = true
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v (stderr %s)", err, stderr.String())
	}
	if len(seen) != 32 {
		t.Errorf("%d of 32 requests answered", len(seen))
	}
	if !strings.Contains(stderr.String(), "obsidian-mcp ready") {
		t.Errorf("logs missing from stderr: %q", stderr.String())
	}
}
