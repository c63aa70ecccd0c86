//go:build !unix

package obsidiancli

import "os/exec"

// configureProcessGroup keeps exec's default cancellation (Process.Kill) on
// platforms without POSIX process groups; WaitDelay still bounds the wait
// for pipes a surviving grandchild holds.
func configureProcessGroup(cmd *exec.Cmd) {}
