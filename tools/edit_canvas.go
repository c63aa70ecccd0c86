package tools

import (
	"context"
	"fmt"

	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type editCanvasArgs struct {
	canvasLocator
	version
	Create bool             `json:"create,omitempty" jsonschema:"Create it if missing (with path)."`
	Add    []map[string]any `json:"add,omitempty" jsonschema:"JSON Canvas nodes {type, text|file|url|label, x?, y?, width?, height?, color?} and edges {fromNode, toNode, fromSide?, toSide?, toEnd?, label?}." validate:"omitempty,max=200"`
	Update []map[string]any `json:"update,omitempty" jsonschema:"{id, key: value, ...}; null removes a key." validate:"omitempty,max=200"`
	Remove []string         `json:"remove,omitempty" jsonschema:"Ids of nodes (with their edges) and edges." validate:"omitempty,max=200,dive,max=200"`
}

type canvasEdited struct {
	note.Edited
	Created bool     `json:"created,omitempty" jsonschema:"true when the canvas was created"`
	IDs     []string `json:"ids,omitempty" jsonschema:"the ids of the added nodes and edges, in order"`
	Dropped int      `json:"edges_dropped,omitempty" jsonschema:"edges removed with their nodes"`
}

var editCanvas = spec[editCanvasArgs, canvasEdited]{
	name:    "obsidian_edit_canvas",
	toolset: "canvas",
	title:   "Edit canvas",
	description: "Add, update and remove a canvas's nodes and edges, in that order, as one write (all or nothing; an edge may join nodes added with it). " +
		"A node without x/y goes below the others. Returns {path, etag, changed, ids}.",
	hints: hints{destructive: true},
	run: func(ctx context.Context, v Vault, a editCanvasArgs) (canvasEdited, error) {
		loc, err := a.canvasFile()
		if err != nil {
			return canvasEdited{}, err
		}
		add, err := objects("add", a.Add)
		if err != nil {
			return canvasEdited{}, err
		}
		update, err := objects("update", a.Update)
		if err != nil {
			return canvasEdited{}, err
		}
		if len(add)+len(update)+len(a.Remove) == 0 && !a.Create {
			return canvasEdited{}, errors.InvalidFields(errors.Field{Field: "add", Message: "give something to add, update or remove (or create: true for an empty canvas)"})
		}
		var res canvasEdited
		change := func(cur []byte) ([]byte, error) {
			c, err := canvas.Parse(cur)
			if err != nil {
				return nil, errors.E(errors.Unsupported, "the file %v; nothing was changed", err).
					WithHint("Read it as text with obsidian_read_note, or fix it in Obsidian.")
			}
			ids, bad := c.Add(add)
			bad = append(bad, c.Update(update)...)
			dropped, gone := c.Remove(a.Remove)
			if bad = append(bad, gone...); bad != nil {
				return nil, errors.InvalidFields(bad...)
			}
			res.IDs, res.Dropped = ids, dropped
			return c.Marshal(), nil
		}
		if a.Create {
			if a.Path == "" {
				return canvasEdited{}, errors.InvalidFields(errors.Field{Field: "path", Message: "create needs the new canvas's path, e.g. Boards/Plan.canvas"})
			}
			content, err := change(nil)
			if err != nil {
				return canvasEdited{}, err
			}
			c, err := v.Notes.Create(ctx, note.CreateRequest{Path: a.Path, Content: string(content)})
			if err == nil {
				res.Edited = note.Edited{Path: c.Path, ETag: note.ETag(content), Changed: true}
				res.Created = true
				return res, nil
			}
			if errors.From(err) == nil || errors.From(err).Kind != errors.FileExists {
				return canvasEdited{}, err
			}
			// It exists: edit it as it is.
		}
		res.Edited, err = v.Edit.Edit(ctx, loc, a.IfMatch, change)
		if err != nil {
			return canvasEdited{}, err
		}
		return res, nil
	},
}

// objects are the JSON objects of a list argument; a null item is
// refused, naming it.
func objects(field string, items []map[string]any) ([]canvas.Object, error) {
	out := make([]canvas.Object, len(items))
	for i, m := range items {
		if m == nil {
			return nil, errors.InvalidFields(errors.Field{Field: fmt.Sprintf("%s[%d]", field, i), Message: "must be a JSON object, e.g. {\"type\":\"text\",\"text\":\"Idea\"}"})
		}
		out[i] = canvas.FromMap(m)
	}
	return out, nil
}
