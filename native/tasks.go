package native

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

// Tasks reads the notes (in q.Folder, when set) and returns the tasks q
// selects, in to-do order.
func (v *Engine) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	set, err := v.TaskSettings(ctx)
	if err != nil {
		return nil, err
	}
	files, err := v.Files()
	if err != nil {
		return nil, err
	}
	prefix := strings.Trim(q.Folder, "/") + "/"
	out := []tasks.Task{}
	for _, f := range files {
		if path.Ext(f) != ".md" || prefix != "/" && !strings.HasPrefix(f, prefix) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := atomicfile.ReadSettled(v.root, f, &v.published)
		if err != nil {
			continue // gone or unreadable since it was listed: no tasks
		}
		etag := note.ETag(data)
		for _, t := range tasks.Parse(f, data) {
			t.ETag = etag
			if set.Selected(t) && q.Match(t) {
				out = append(out, t)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b tasks.Task) int {
		if tasks.Less(a, b) {
			return -1
		}
		if tasks.Less(b, a) {
			return 1
		}
		return 0
	})
	return out, nil
}

// TaskSettings reads the Tasks plugin's settings when the plugin is on.
func (v *Engine) TaskSettings(context.Context) (tasks.Settings, error) {
	if !v.pluginOn(tasks.PluginID) {
		return tasks.DefaultSettings(), nil
	}
	data, err := v.readSmall(tasks.SettingsFile, maxConfig)
	if err != nil {
		return tasks.DefaultSettings(), nil
	}
	return tasks.ReadSettings(data), nil
}
