package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// version is embedded in the arguments of every tool that writes an
// existing note.
type version struct {
	IfMatch string `json:"if_match,omitempty" jsonschema:"The note's etag as you read it (obsidian_read_note and every edit return one). If the note has changed since, nothing is written and the call fails with REVISION_CONFLICT giving the current etag. Without it the call applies to the note as it is now." validate:"omitempty,etag"`
}

// checkVersion refuses, with REVISION_CONFLICT, a note that is not the
// version ifMatch names, and returns the locator pinned to its path. It is
// for writes that are not content edits (delete, move, rename, overwrite):
// no backend can make those conditional, so the check runs just before
// them. Content edits are compare-and-swap (Editor).
func checkVersion(ctx context.Context, v Vault, loc note.Locator, ifMatch string) (note.Locator, error) {
	if ifMatch == "" {
		return loc, nil
	}
	c, err := v.Notes.Read(ctx, loc)
	if err != nil {
		return loc, err
	}
	if err := note.CheckVersion(c.Path, ifMatch, []byte(c.Content)); err != nil {
		return loc, err
	}
	return note.Locator{Path: c.Path, IfMatch: ifMatch}, nil
}

// editWritten runs an append or prepend as a compare-and-swap edit.
func editWritten(ctx context.Context, v Vault, l locator, ifMatch, content string, change note.Change) (note.Written, error) {
	res, err := v.Edit.Edit(ctx, l.note(), ifMatch, change)
	if err != nil {
		return note.Written{}, err
	}
	return note.Written{Path: res.Path, Bytes: len(content), ETag: res.ETag}, nil
}

type patchNoteArgs struct {
	locator
	version
	Operation       string `json:"operation" jsonschema:"What to do at the target: before (just above a heading or block), after (just below a whole section, subsections included, or a block), prepend (at the start of the section's body, under its heading), append (at the end of the section's own text, above its first subheading), replace (the section's own text; its subsections stay). For a property: replace sets it, append and prepend add list items." validate:"required,oneof=before after prepend append replace"`
	Heading         string `json:"heading,omitempty" jsonschema:"Target heading: a path such as Plan > Risks (each part nested in the one before), or one heading's text when it is unique in the note. Several matches fail with AMBIGUOUS_NAME listing them with their lines." validate:"omitempty,max=500,nocontrols"`
	Block           string `json:"block,omitempty" jsonschema:"Target block id, with or without its ^ (^task-1 or task-1): the paragraph, list item or table the id ends." validate:"omitempty,max=200,nocontrols"`
	Property        string `json:"property,omitempty" jsonschema:"Target frontmatter property, e.g. status. replace sets its value keeping its type (a list takes one item per line); append and prepend add list items." validate:"omitempty,max=200,nocontrols"`
	Content         string `json:"content,omitempty" jsonschema:"The text to insert or to replace with, stored exactly as sent except that its line endings follow the note's. Whole lines stay whole, and inserted text is a Markdown block of its own: a blank line is added where it would join a paragraph, quote or table (a list item next to a list continues it). Empty with replace clears the target's own text."`
	CreateIfMissing bool   `json:"create_if_missing,omitempty" jsonschema:"Create a missing heading (under its deepest existing parent, at the level it belongs) or property instead of failing."`
}

// patchResult is an applied patch.
type patchResult struct {
	note.Edited
	Created string `json:"created,omitempty" jsonschema:"the heading path or property that create_if_missing added"`
}

var patchNote = spec[patchNoteArgs, patchResult]{
	name:  "obsidian_patch_note",
	title: "Patch note",
	description: "Change one part of a note and leave every other byte as it was: insert text before or after a heading's section or a block, at the start or end of its body, or replace its body; or set a frontmatter property, or add items to a list property. " +
		"Give exactly one target: `heading` (a path like `Plan > Risks`, or a unique heading; see obsidian_get_outline), `block` (`^id`) or `property`. " +
		"A heading that matches several fails with AMBIGUOUS_NAME and every candidate; a missing target fails unless `create_if_missing`. " +
		"Pass the etag you read as `if_match` to refuse the edit if the note changed meanwhile (REVISION_CONFLICT). Returns {path, etag, changed, created}.",
	hints: hints{destructive: true}, // replace removes text
	run: func(ctx context.Context, v Vault, a patchNoteArgs) (patchResult, error) {
		var created string
		res, err := v.Edit.Edit(ctx, a.note(), a.IfMatch, func(cur []byte) ([]byte, error) {
			var (
				r   patch.Result
				err error
			)
			if a.Property != "" {
				r, err = patch.ApplyProperty(cur, a.Property, a.Operation, a.Content, a.CreateIfMissing)
			} else {
				r, err = patch.Apply(cur, patch.Target{Heading: a.Heading, Block: a.Block}, a.Operation, a.Content, a.CreateIfMissing)
			}
			if err != nil {
				return nil, err
			}
			created = r.Created
			return r.Content, nil
		})
		if err != nil {
			return patchResult{}, err
		}
		return patchResult{Edited: res, Created: created}, nil
	},
}
