package obsidiantest

import (
	"fmt"
	"slices"
	"strings"
)

// fakeCommands are the app's commands as `commands` lists them: the id,
// a tab, the name.
var fakeCommands = []string{"app:reload\tReload app without saving", "daily-notes\tOpen today's daily note", "editor:save-file\tSave current file"}

// appCommands answers `commands [filter=]` and `command id=`.
func appCommands(c call, out *strings.Builder) {
	if c.command == "commands" {
		for _, cmd := range fakeCommands {
			if strings.HasPrefix(cmd, c.params["filter"]) {
				out.WriteString(cmd + "\n")
			}
		}
		return
	}
	id := c.params["id"]
	if !slices.ContainsFunc(fakeCommands, func(cmd string) bool { return strings.HasPrefix(cmd, id+"\t") }) {
		fmt.Fprintf(out, "Error: Command %q not found. Use \"commands\" to list available command IDs.\n", id)
		return
	}
	fmt.Fprintf(out, "Executed: %s\n", id)
}
