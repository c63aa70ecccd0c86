//go:build !unix

package obsidiantest

import "os"

// crash ends the fake abruptly; only Unix can die by a signal.
func crash(string) { os.Exit(3) }
