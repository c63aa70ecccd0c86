// Command fakecli is obsidiantest's fake obsidian CLI as a program of its
// own: the same fake the test binaries carry, without the rest of the
// server linked in, so that each of its thousands of starts in the tests
// costs little (obsidiantest.Main builds it; Install links it in place
// under the name obsidian). scripts/bench uses it too: under the name
// obsidian, with a scenario.json beside it, it answers at once from the
// vault named there, as the real CLI would from a running app.
package main

import (
	"fmt"
	"os"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
)

func main() {
	obsidiantest.RunIfFake()
	fmt.Fprintln(os.Stderr, "fakecli: start me under the name obsidian (obsidiantest.Install does)")
	os.Exit(2)
}
