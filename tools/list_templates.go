package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type listTemplatesArgs struct{}

var listTemplates = spec[listTemplatesArgs, note.Templates]{
	name:        "obsidian_list_templates",
	toolset:     "files",
	title:       "List templates",
	description: "List the vault's templates (the Templates folder) with the variables each fills in, to pass one as obsidian_create_note's `template`.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, _ listTemplatesArgs) (note.Templates, error) {
		return v.Templates.Templates(ctx)
	},
}
