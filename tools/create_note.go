package tools

import (
	"context"

	"github.com/go-playground/validator/v10"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type createNoteArgs struct {
	Path      string `json:"path,omitempty" jsonschema:"Path of the new note, e.g. Projects/Plan.md." validate:"omitempty,notepath"`
	Name      string `json:"name,omitempty" jsonschema:"Or a file name, e.g. Plan, put in folder." validate:"omitempty,newname"`
	Folder    string `json:"folder,omitempty" jsonschema:"Folder for name. Default: the root." validate:"omitempty,folder,excluded_with=Path"`
	Content   string `json:"content,omitempty" jsonschema:"The content, stored as sent."`
	Template  string `json:"template,omitempty" jsonschema:"A template (Templates folder) to start from." validate:"omitempty,nocontrols"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"Replace an existing note."`
	Open      bool   `json:"open,omitempty" jsonschema:"Open it in Obsidian."`
	IfMatch   string `json:"if_match,omitempty" jsonschema:"With overwrite: the etag of the note you replace." validate:"omitempty,etag"`
}

// checkAcross implements acrossFields: exactly one of path and name.
func (createNoteArgs) checkAcross(sl validator.StructLevel) { onePathOrName(sl) }

var createNote = spec[createNoteArgs, note.Created]{
	name:        "obsidian_create_note",
	toolset:     "files",
	confirm:     func(args map[string]any) bool { overwrite, _ := args["overwrite"].(bool); return overwrite },
	title:       "Create note",
	description: "Create a note at `path`, or `name` in `folder` (.md added, folders made), with content stored as sent. An existing note fails with FILE_EXISTS unless `overwrite`. Returns {path, overwrote, size, opened}.",
	hints:       hints{destructive: true}, // overwrite: true replaces a note
	run: func(ctx context.Context, v Vault, a createNoteArgs) (note.Created, error) {
		if a.IfMatch != "" {
			if !a.Overwrite {
				return note.Created{}, errors.InvalidFields(errors.Field{Field: "if_match", Message: "applies only with overwrite: true (a new note has no version to match)"})
			}
			req := note.CreateRequest{Path: a.Path, Name: a.Name, Folder: a.Folder}
			if a.Template == "" && !a.Open {
				// The check and the replacement as one compare-and-swap:
				// nothing written between them is lost.
				res, err := v.Edit.Edit(ctx, note.ByPath(req.Target()), a.IfMatch, func([]byte) ([]byte, error) { return []byte(a.Content), nil })
				if err != nil {
					return note.Created{}, err
				}
				return note.Created{Path: res.Path, Overwrote: true, Size: len(a.Content)}, nil
			}
			if _, err := checkVersion(ctx, v, note.ByPath(req.Target()), a.IfMatch); err != nil {
				return note.Created{}, err
			}
		}
		return v.Notes.Create(ctx, note.CreateRequest{Path: a.Path, Name: a.Name, Folder: a.Folder, Content: a.Content,
			Template: a.Template, Overwrite: a.Overwrite, Open: a.Open})
	},
}
