//go:build !unix

package gateway

import (
	"os"
	"os/exec"
)

// inGroup keeps exec's defaults where there are no POSIX process groups.
func inGroup(*exec.Cmd) {}

// signalGroup can only kill the process itself here.
func signalGroup(pid int, _ bool) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
