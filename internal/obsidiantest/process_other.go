//go:build !unix

package obsidiantest

import "os"

// crash ends the fake abruptly; only Unix can die by a signal.
func crash(string) { os.Exit(3) }

// Kill ends pid, for grandchildren a test leaves running on purpose.
func Kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
