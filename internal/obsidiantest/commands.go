package obsidiantest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/note"
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

// baseQuery answers `base:query path= [view=] format=json` from the
// engine's evaluation: an array of rows, each {"path": …, column: value}.
func (v *vault) baseQuery(c call, out *strings.Builder) {
	p, ok := v.locate(c, out)
	if !ok {
		return
	}
	res, err := v.eng.QueryBase(context.Background(), note.ByPath(p), c.params["view"])
	if err != nil {
		fmt.Fprintf(out, "Error: %s\n", strings.SplitN(err.Error(), "\n", 2)[0])
		return
	}
	var b strings.Builder
	b.WriteString("[")
	for i, r := range res.Rows {
		if i > 0 {
			b.WriteString(",")
		}
		path, _ := json.Marshal(r.Path)
		b.WriteString(`{"path":` + string(path))
		for _, col := range res.Columns {
			val, _ := json.Marshal(r.Values[col])
			name, _ := json.Marshal(col)
			b.WriteString("," + string(name) + ":" + string(val))
		}
		b.WriteString("}")
	}
	b.WriteString("]\n")
	out.WriteString(b.String())
}
