package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type readNotesArgs struct {
	Paths []string `json:"paths,omitempty" jsonschema:"Vault-relative paths." validate:"omitempty,max=20,dive,notepath"`
	Names []string `json:"names,omitempty" jsonschema:"Note names, as in wikilinks." validate:"omitempty,max=20,dive,notename"`
}

// readItem is one note of a read_notes answer: its content, or its error.
type readItem struct {
	Requested string    `json:"requested" jsonschema:"the path or name as asked"`
	Path      string    `json:"path,omitempty" jsonschema:"vault-relative path of the note read"`
	Content   string    `json:"content" jsonschema:"the note's exact content; empty when it failed"`
	ETag      string    `json:"etag,omitempty" jsonschema:"hash of the note's content; absent when it failed"`
	Error     itemError `json:"error,omitzero" jsonschema:"why this note could not be read, when it could not; the others are unaffected"`
}

type itemError struct {
	Code       string   `json:"errorCode,omitempty" jsonschema:"the error kind, e.g. FILE_NOT_FOUND, AMBIGUOUS_NAME, TOO_LARGE"`
	Message    string   `json:"message,omitempty"`
	Candidates []string `json:"candidates,omitempty" jsonschema:"for AMBIGUOUS_NAME: the matching paths"`
}

type readNotesResult struct {
	Notes []readItem `json:"notes" jsonschema:"one entry per note asked for, in order: paths first, then names"`
}

var readNotes = spec[readNotesArgs, readNotesResult]{
	name:        "obsidian_read_notes",
	toolset:     "read",
	title:       "Read several notes",
	description: "Read up to 20 notes by `paths` and/or `names`: each with its content and etag, or its own error. Past about 100 KB in all, the rest fail with TOO_LARGE.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a readNotesArgs) (readNotesResult, error) {
		var locs []note.Locator
		for _, p := range a.Paths {
			locs = append(locs, note.ByPath(p))
		}
		for _, n := range a.Names {
			locs = append(locs, note.ByName(n))
		}
		if len(locs) == 0 || len(locs) > 20 {
			return readNotesResult{}, errors.InvalidFields(errors.Field{Field: "paths", Message: "give 1 to 20 notes in all, in paths and names"})
		}
		res := readNotesResult{Notes: make([]readItem, 0, len(locs))}
		budget := maxRead
		for _, loc := range locs {
			it := readItem{Requested: loc.String()}
			c, err := readText(ctx, v, loc)
			switch {
			case ctx.Err() != nil:
				return readNotesResult{}, ctx.Err()
			case err != nil:
				e := errors.From(err)
				it.Error = itemError{Code: string(e.Kind), Message: e.Message, Candidates: e.Candidates}
			case len(c.Content) > budget:
				it.Path = c.Path
				it.Error = itemError{Code: "TOO_LARGE", Message: "this note would take the answer over about 100 KB; read it with obsidian_read_note, by section or lines"}
			default:
				budget -= len(c.Content)
				it.Path, it.Content, it.ETag = c.Path, c.Content, note.ETag([]byte(c.Content))
			}
			res.Notes = append(res.Notes, it)
		}
		return res, nil
	},
}
