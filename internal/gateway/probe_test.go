package gateway

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
)

// TestProbe: doctor's probe starts the server as the gateway would, hands
// back what it said, and stops it; a server that cannot start is reported
// with what it said last.
func TestProbe(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "fake.log")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)

	got, err := Probe(ctx, Namespace{Name: "fake", Command: exe, Env: map[string]string{"GATEWAY_FAKE_SERVER": "1", "FAKE_LOG": log}}, "test", quiet)
	if err != nil {
		t.Fatal(err)
	}
	if got.Server != "fake" || got.Protocol != gatewayProtocol || got.Tools != 1 || got.PID == 0 || got.Took <= 0 {
		t.Errorf("probed %+v, want the fake's name, protocol %s, 1 tool, a pid and a time", got, gatewayProtocol)
	}
	// Stopped as the gateway stops it: end of input first.
	if lines := fakeLog(t, log); count(lines, "start ") != 1 || count(lines, "initialize ") != 1 || count(lines, "eof") != 1 {
		t.Errorf("the fake saw %q, want one start, one initialize and the end of its input", lines)
	}
	stoppedAfterProbe(t, got.PID)

	if runtime.GOOS == "windows" {
		return
	}
	_, err = Probe(ctx, Namespace{Name: "crash", Command: "sh", Args: []string{"-c", "echo boom >&2; exit 3"}}, "test", quiet)
	if err == nil || !strings.Contains(err.Error(), "exit status 3: boom") {
		t.Errorf("a server that exits at once: %v, want its exit status and last stderr line", err)
	}
	_, err = Probe(ctx, Namespace{Name: "none", Command: filepath.Join(t.TempDir(), "absent")}, "test", quiet)
	if err == nil || !strings.Contains(err.Error(), "cannot be started") {
		t.Errorf("a server that is not there: %v", err)
	}
}

// TestExecutable: a command namespace's program is found where the
// gateway's start would find it.
func TestExecutable(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("executable bits")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "srv"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err := Namespace{Command: "sh"}.Executable()
	if err != nil || !filepath.IsAbs(sh) {
		t.Errorf("sh on PATH: %q, %v", sh, err)
	}
	tests := []struct {
		ns   Namespace
		want string // the path, or a part of the error
	}{
		{Namespace{Command: filepath.Join(dir, "srv")}, filepath.Join(dir, "srv")},
		{Namespace{Command: "./srv", Cwd: dir}, filepath.Join(dir, "srv")},
		{Namespace{Command: "./srv"}, "no such file"},
		{Namespace{Command: filepath.Join(dir, "plain")}, "is not executable"},
		{Namespace{Command: dir + "/"}, "is a folder"},
		{Namespace{Command: "no-such-mcp-server-anywhere"}, "executable file not found"},
	}
	for _, tt := range tests {
		got, err := tt.ns.Executable()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("Executable(%q, cwd %q) = %q, want %q", tt.ns.Command, tt.ns.Cwd, got, tt.want)
		}
	}
}

// TestInitializeToExitingProcess: when initialize cannot be written
// because the process is exiting, the failure says how it ended, not
// "broken pipe", however long the exit takes to be seen (doctor --gateway
// once reported only that, under -race, when sh exited before the gateway
// wrote).
func TestInitializeToExitingProcess(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	cmd := exec.Command("sh", "-c", "exit 4")
	_ = cmd.Run() // exits 4: the state the error should report
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Close() // so the write fails, as to a process that is gone
	pr := &proc{cmd: cmd, stdin: w, init: make(chan struct{}), initAnswer: make(chan initAnswer, 1), exited: make(chan struct{})}
	pr.lastStderr.Store("config.json not found")
	// The exit is seen a while after the failed write, as wait sees it on
	// a busy machine: later than the 2 s after which the gateway once gave
	// up and said "broken pipe" (doctor --gateway's crash namespace flaked
	// so).
	time.AfterFunc(2500*time.Millisecond, func() { close(pr.exited) })
	p := newCommandPeer(auth.Guard{Writes: auth.Writing}, Namespace{Name: "gone", Command: "sh"}, "test", DefaultBackoff, DefaultMaxResponse, 0, slog.New(slog.DiscardHandler))
	p.sup.initialize(pr)
	<-pr.init
	if pr.initErr == nil || !strings.Contains(pr.initErr.Error(), "exit status 4: config.json not found") {
		t.Errorf("initialize to an exiting process: %v, want its exit status and last words", pr.initErr)
	}
}
