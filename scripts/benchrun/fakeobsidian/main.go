// Command fakeobsidian is the test suite's fake Obsidian CLI
// (internal/obsidiantest) as a standalone program, for scripts/bench. Built
// under the name obsidian, it answers at once from the vault named in the
// scenario.json beside it, as the real CLI would from a running app.
package main

import (
	"fmt"
	"os"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

// noTests is what runs when the binary is not started as obsidian.
type noTests struct{}

func (noTests) Run() int {
	fmt.Fprintln(os.Stderr, "fakeobsidian: build or link me as `obsidian`, with a scenario.json beside me")
	return 2
}

func main() { obsidiantest.Main(noTests{}) }
