package obsidiancli

import (
	"context"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Commands lists the app's commands, those whose id starts with filter
// when it is set: one per line, the id and, after a tab, its name.
func (b *Backend) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	var args []string
	if filter != "" {
		args = append(args, "filter="+filter)
	}
	out, err := b.CLI.Run(ctx, "commands", args...)
	if err != nil {
		return nil, err
	}
	list := []note.Command{}
	for _, line := range strings.Split(out, "\n") {
		id, name, _ := strings.Cut(strings.TrimRight(line, "\r"), "\t")
		if id = strings.TrimSpace(id); id != "" {
			list = append(list, note.Command{ID: id, Name: strings.TrimSpace(name)})
		}
	}
	return list, nil
}

// RunCommand runs one of the app's commands by id.
func (b *Backend) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	out, err := b.CLI.Run(ctx, "command", "id="+id)
	if e := errors.From(err); err != nil && e.Kind == errors.CLIError && strings.Contains(e.Message, `Command "`+id+`" not found`) {
		return note.CommandRun{}, errors.InvalidFields(errors.Field{Field: "id", Message: "is no command of the app: list them with obsidian_list_commands (ids look like editor:save-file)"})
	}
	if err != nil {
		return note.CommandRun{}, err
	}
	return note.CommandRun{ID: id, Output: strings.TrimSpace(out)}, nil
}
