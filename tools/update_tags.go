package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

type updateTagsArgs struct {
	locator
	version
	Add    []string `json:"add,omitempty" jsonschema:"Tags to add, e.g. [\"project\", \"area/home\"]." validate:"max=50"`
	Remove []string `json:"remove,omitempty" jsonschema:"Tags to remove, from the frontmatter and inline." validate:"max=50"`
}

type tagsUpdated struct {
	note.Edited
	Added   []string `json:"added" jsonschema:"the tags added (those the note did not have)"`
	Removed int      `json:"removed" jsonschema:"how many uses of the removed tags were taken out"`
}

var updateTags = spec[updateTagsArgs, tagsUpdated]{
	name:        "obsidian_update_tags",
	toolset:     "edit",
	title:       "Add or remove tags",
	description: "Add tags to a note's frontmatter and remove tags from it (frontmatter and inline). Returns {path, etag, changed, added, removed}.",
	hints:       hints{destructive: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a updateTagsArgs) (tagsUpdated, error) {
		if len(a.Add) == 0 && len(a.Remove) == 0 {
			return tagsUpdated{}, errors.InvalidFields(errors.Field{Field: "add", Message: "give add, remove or both"},
				errors.Field{Field: "remove", Message: "give add, remove or both"})
		}
		add, err := cleanTags("add", a.Add)
		if err != nil {
			return tagsUpdated{}, err
		}
		remove, err := cleanTags("remove", a.Remove)
		if err != nil {
			return tagsUpdated{}, err
		}
		var out tagsUpdated
		res, err := v.Edit.Edit(ctx, a.note(), a.IfMatch, func(cur []byte) ([]byte, error) {
			r, removed, err := patch.RemoveTags(cur, remove)
			if err != nil {
				return nil, err
			}
			r, added, err := patch.AddTags(r.Content, add)
			out.Added, out.Removed = added, removed
			return r.Content, err
		})
		if err != nil {
			return tagsUpdated{}, err
		}
		out.Edited = res
		if out.Added == nil {
			out.Added = []string{}
		}
		return out, nil
	},
}

func cleanTags(field string, tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		name, err := patch.CleanTag(field, t)
		if err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, nil
}
