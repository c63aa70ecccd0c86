package vaultindex

import (
	"os"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

// TestMain runs more tests at once than there are cores: the build tests
// read from a source that sleeps a millisecond a file.
func TestMain(m *testing.M) {
	testenv.MoreAtOnce()
	os.Exit(m.Run())
}
