package shutdown

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// TestEventStopsTheProcess: another process, on no console of the
// child's, sets the child's event and the child's context ends (the
// child is this test binary, waiting in Requested's context).
func TestEventStopsTheProcess(t *testing.T) {
	if os.Getenv("SHUTDOWN_TEST_CHILD") == "1" {
		ctx, stop := Requested(t.Context())
		defer stop()
		os.Stdout.WriteString("waiting\n")
		select {
		case <-ctx.Done():
			os.Stdout.WriteString("stopped\n")
		case <-time.After(time.Minute):
			t.Fatal("not stopped within a minute")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEventStopsTheProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "SHUTDOWN_TEST_CHILD=1")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	// Detached: no console shared, so no Ctrl+Break could have done it.
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := Ask(cmd.Process.Pid, time.Minute); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("%v\n%s", err, out.String())
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(out.String(), "stopped") {
			t.Errorf("child: %v\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the child did not stop within a minute of the event\n%s", out.String())
	}
}

// TestStopTwice: the program's deferred stop after its own is harmless
// (the handles are closed once).
func TestStopTwice(t *testing.T) {
	ctx, stop := Requested(t.Context())
	stop()
	stop()
	if ctx.Err() == nil {
		t.Error("the context lives on after stop")
	}
}
