package tools

import (
	"context"

	"github.com/go-playground/validator/v10"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// version is embedded in the arguments of every tool that writes an
// existing note.
type version struct {
	IfMatch string `json:"if_match,omitempty" jsonschema:"Only if the etag is still this." validate:"omitempty,etag"`
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
	c, err := readText(ctx, v, loc)
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
	Operation       string `json:"operation" jsonschema:"before/after the whole section or block; prepend/append to its own text (above subheadings); replace it. On a property: replace sets, append/prepend add list items." validate:"required,oneof=before after prepend append replace"`
	Heading         string `json:"heading,omitempty" jsonschema:"Target heading: a path such as Plan > Risks, or a unique heading." validate:"omitempty,max=500,nocontrols"`
	Block           string `json:"block,omitempty" jsonschema:"Target block id, e.g. ^task-1." validate:"omitempty,max=200,nocontrols"`
	Property        string `json:"property,omitempty" jsonschema:"Target frontmatter property, e.g. status." validate:"omitempty,max=200,nocontrols"`
	Content         string `json:"content,omitempty" jsonschema:"The text, with the note's line endings. Empty with replace clears the target."`
	CreateIfMissing bool   `json:"create_if_missing,omitempty" jsonschema:"Create a missing heading or property."`
}

// checkAcross implements acrossFields: exactly one target.
func (a patchNoteArgs) checkAcross(sl validator.StructLevel) {
	set := 0
	for _, t := range []string{a.Heading, a.Block, a.Property} {
		if t != "" {
			set++
		}
	}
	if set != 1 {
		sl.ReportError(a.Heading, "heading", "Heading", "target", "")
		sl.ReportError(a.Block, "block", "Block", "target", "")
		sl.ReportError(a.Property, "property", "Property", "target", "")
	}
}

// patchResult is an applied patch.
type patchResult struct {
	note.Edited
	Created string `json:"created,omitempty" jsonschema:"the heading path or property that create_if_missing added"`
	// LinksBroken are the links to a heading the patch removed (a
	// replace whose text drops a subheading, say).
	LinksBroken []BrokenLink `json:"links_broken,omitempty" jsonschema:"links to a heading this edit removed or renamed, which now lead to no heading"`
}

var patchNote = spec[patchNoteArgs, patchResult]{
	name:        "obsidian_patch_note",
	toolset:     "edit",
	title:       "Patch note",
	description: "Edit one part of a note and no other byte: insert around or inside a `heading` section (e.g. `Plan > Risks`) or a `block` (^id), or replace its text; or set or extend a frontmatter `property`. Returns {path, etag, changed, created}.",
	hints:       hints{destructive: true}, // replace removes text
	run: func(ctx context.Context, v Vault, a patchNoteArgs) (patchResult, error) {
		var created string
		var before, after []byte
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
			created, before, after = r.Created, cur, r.Content
			return r.Content, nil
		})
		if err != nil {
			return patchResult{}, err
		}
		out := patchResult{Edited: res, Created: created}
		if res.Changed && a.Property == "" {
			out.LinksBroken = brokenLinks(ctx, v, res.Path, before, after)
		}
		return out, nil
	},
}
