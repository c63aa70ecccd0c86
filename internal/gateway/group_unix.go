//go:build unix

package gateway

import (
	"errors"
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own, so that stopping it
// stops whatever it started too (a server run through npx or a shell).
func inGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends the group of pid a polite stop (SIGTERM) or, with
// kill, SIGKILL.
func signalGroup(pid int, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}
