//go:build !unix

package obsidiancli

import (
	"os"
	"os/exec"
)

// configureProcessGroup keeps exec's default cancellation (Process.Kill) on
// platforms without POSIX process groups; WaitDelay still bounds the wait
// for pipes a surviving grandchild holds.
func configureProcessGroup(cmd *exec.Cmd) {}

// signalName is "" where processes do not end by signals.
func signalName(*os.ProcessState) string { return "" }
