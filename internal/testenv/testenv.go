// Package testenv gives a test binary the surroundings a user's machine
// would: folders of its own where servers keep per-user state, so that
// tests leave nothing in the real ones.
package testenv

import (
	"os"
	"path/filepath"
)

// IsolateUserDirs points the user's cache folder (where servers keep their
// search index by default) and configuration folder (their journal key)
// at a new temporary folder for this process and every process it starts.
// The returned function removes it.
func IsolateUserDirs() (remove func()) {
	dir, err := os.MkdirTemp("", "obsidian-mcp-cache")
	if err != nil {
		return func() {}
	}
	_ = os.Setenv("XDG_CACHE_HOME", dir)
	_ = os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	return func() { _ = os.RemoveAll(dir) }
}
