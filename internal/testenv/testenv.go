// Package testenv gives a test binary the surroundings a user's machine
// would: folders of its own where servers keep per-user state, so that
// tests leave nothing in the real ones.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// UserDirs are a new temporary cache folder (where servers keep their
// search index by default) and configuration folder (their journal key),
// as the environment variables that name them. A test binary sets Env in
// its TestMain (a process-wide setting is the program's choice, not a
// library's) and calls Remove at the end.
type UserDirs struct {
	Env  map[string]string
	root string
}

// NewUserDirs makes the folders.
func NewUserDirs() (*UserDirs, error) {
	dir, err := os.MkdirTemp("", "obsidian-mcp-cache")
	if err != nil {
		return nil, err
	}
	// XDG_* name them on Linux and the BSDs, LOCALAPPDATA and APPDATA on
	// Windows (os.UserCacheDir, os.UserConfigDir); each system ignores
	// the other's.
	return &UserDirs{root: dir, Env: map[string]string{
		"XDG_CACHE_HOME":  dir,
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"LOCALAPPDATA":    dir,
		"APPDATA":         filepath.Join(dir, "config"),
	}}, nil
}

// Remove deletes the folders.
func (u *UserDirs) Remove() { _ = os.RemoveAll(u.root) }

// Apply sets Env with set (os.Setenv, from the test binary's TestMain).
func (u *UserDirs) Apply(set func(key, value string) error) {
	for k, v := range u.Env {
		_ = set(k, v)
	}
}

// Isolated runs a test binary's tests with user folders of their own
// (NewUserDirs), for its TestMain.
type Isolated struct{ M *testing.M }

// Run implements what obsidiantest.Main runs.
func (i Isolated) Run() int {
	if dirs, err := NewUserDirs(); err == nil {
		dirs.Apply(os.Setenv)
		defer dirs.Remove()
	}
	return i.M.Run()
}
