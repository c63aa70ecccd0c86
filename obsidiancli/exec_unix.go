//go:build unix

package obsidiancli

import (
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// configureProcessGroup starts the CLI in a process group of its own, so a
// timeout or cancellation kills it and everything it started: a grandchild
// holding our pipes would otherwise keep Wait (and the client) waiting.
func configureProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return nil // already gone
		}
		return err
	}
}

// signalName names the signal that ended the process, or "" when it exited.
func signalName(ps *os.ProcessState) string {
	if ps == nil {
		return ""
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return strings.ToUpper(strings.TrimPrefix(unix.SignalName(ws.Signal()), "SIG"))
}
