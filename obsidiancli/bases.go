package obsidiancli

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// QueryBase asks the app for a view (base:query, JSON): used where the
// vault folder is not on this machine, since the router prefers the
// folder's evaluation, whose rules are documented. Each row is one JSON
// object: its "path" (or "file") names the file, its other keys are the
// columns, in the app's order. Any other shape is an error, never a guess.
func (b *Backend) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return bases.Result{}, err
	}
	args := []string{"path=" + p, "format=json"}
	if view != "" {
		args = append(args, "view="+view)
	}
	out, err := b.CLI.Run(ctx, "base:query", args...)
	if err != nil {
		return bases.Result{}, err
	}
	var objs []canvas.Object
	if err := json.Unmarshal(bytes.TrimSpace([]byte(out)), &objs); err != nil {
		return bases.Result{}, errors.E(errors.CLIError, "obsidian base:query answered in a shape this server does not read: %v", err).
			With("cli_output", quote(out)).
			WithHint("Give the server the vault folder (--vault-path), where bases are evaluated natively.")
	}
	res := bases.Result{Path: p, View: view, Rows: []bases.Row{}}
	for _, o := range objs {
		row := bases.Row{Values: map[string]any{}}
		for _, k := range o.Keys() {
			if (k == "path" || k == "file") && row.Path == "" {
				if s, ok := o.String(k); ok {
					row.Path = s
					continue
				}
			}
			var v any
			_ = json.Unmarshal(o.Raw(k), &v)
			row.Values[k] = v
			if len(res.Rows) == 0 {
				res.Columns = append(res.Columns, k)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	res.Total = len(res.Rows)
	return res, nil
}
