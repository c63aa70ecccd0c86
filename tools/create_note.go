package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type createNoteArgs struct {
	Path      string `json:"path,omitempty" jsonschema:"Vault-relative path of the new note, e.g. Projects/Plan.md; .md is added when the name has no extension. Give either path or name." validate:"omitempty,notepath"`
	Name      string `json:"name,omitempty" jsonschema:"File name of the new note, e.g. Plan (.md is added when there is no extension); it goes in folder, or the vault root. Give either path or name." validate:"omitempty,newname"`
	Folder    string `json:"folder,omitempty" jsonschema:"Folder for a note given by name, e.g. Projects/2026; missing folders are created. Default: the vault root." validate:"omitempty,folder,excluded_with=Path"`
	Content   string `json:"content,omitempty" jsonschema:"The note's content, written byte for byte (Markdown, frontmatter, LaTeX backslashes, CRLF, any size). Default: empty."`
	Template  string `json:"template,omitempty" jsonschema:"Name of a template in the vault's Templates folder to create the note from (needs the core Templates plugin)." validate:"omitempty,nocontrols"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"Replace the note if it already exists. Default false: an existing note makes the call fail with FILE_EXISTS and nothing changes."`
	Open      bool   `json:"open,omitempty" jsonschema:"Open the new note in Obsidian afterwards. Default false."`
	IfMatch   string `json:"if_match,omitempty" jsonschema:"With overwrite: the etag of the note you mean to replace, as read. If it has changed since, nothing is written and the call fails with REVISION_CONFLICT giving the current etag." validate:"omitempty,etag"`
}

var createNote = spec[createNoteArgs, note.Created]{
	name:  "obsidian_create_note",
	title: "Create note",
	description: "Create a new note in the Obsidian vault. Say where with `path` (e.g. `Projects/Plan.md`) or with `name` and an optional `folder`; `.md` is added when there is no extension and missing folders are created. " +
		"The content is stored exactly as sent. If a note already exists there the call fails with FILE_EXISTS and changes nothing, unless `overwrite` is true; it never creates a renamed copy. " +
		"Use obsidian_append_to_note or obsidian_prepend_to_note to add to an existing note. Returns {path, overwrote, size, opened}.",
	hints: hints{destructive: true}, // overwrite: true replaces a note
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
