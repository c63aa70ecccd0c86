package obsidiancli

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

// What the app offers no command for: the router serves it from the vault
// folder when there is one.

// Tasks needs the vault folder: the shape of the app's task listing is
// not documented anywhere we could find.
func (b *Backend) Tasks(context.Context, tasks.Query) ([]tasks.Task, error) {
	return nil, needsFolder("the list of tasks").
		WithHint("Tasks are read from the notes in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
}

// TaskSettings needs the vault folder, where the plugin keeps them.
func (b *Backend) TaskSettings(context.Context) (tasks.Settings, error) {
	return tasks.Settings{}, needsFolder("the Tasks plugin's settings").
		WithHint("They are read from the plugin's data.json in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
}

// Templates needs the vault folder: the app has no command that lists its
// templates.
func (b *Backend) Templates(context.Context) (note.Templates, error) {
	return note.Templates{}, needsFolder("the list of templates").
		WithHint("The app's commands do not list templates; they are read from the template folder in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
}
