package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// A tool of its own rather than an operation of obsidian_patch_note: a
// patch changes one note's bytes, and a heading's rename changes every
// note that links to it, as a note's rename does (a dry run, a journal,
// failed notes listed), which patch_note's arguments and answer have no
// room for.

type renameHeadingArgs struct {
	locator
	version
	Heading string `json:"heading" jsonschema:"A path such as Plan > Risks, or a unique heading." validate:"required,max=500,nocontrols"`
	To      string `json:"to" jsonschema:"Its new text, without #s (the level stays)." validate:"required,max=500"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"Change nothing: count the links that would follow."`
}

var renameHeading = spec[renameHeadingArgs, note.HeadingRenamed]{
	name:    "obsidian_rename_heading",
	toolset: "edit",
	title:   "Rename heading, links following",
	description: "Rename a heading of a note and make every link to it follow ([[Note#Old|alias]], ![[Note#Old]], " +
		"[text](Note.md#Old), the note's own [[#Old]]), as one edit. Returns {path, etag, from, to, links, notes, paths, failed}.",
	hints: hints{},
	run: func(ctx context.Context, v Vault, a renameHeadingArgs) (note.HeadingRenamed, error) {
		if msg := patch.CheckHeadingText(a.To); msg != "" {
			return note.HeadingRenamed{}, errors.InvalidFields(errors.Field{Field: "to", Message: msg})
		}
		c, err := v.Notes.Read(ctx, a.note())
		if err != nil {
			return note.HeadingRenamed{}, err
		}
		etag := note.ETag([]byte(c.Content))
		if a.IfMatch != "" && a.IfMatch != etag {
			return note.HeadingRenamed{}, errors.E(errors.RevisionConflict, "%s changed since it was read (etag %s, not %s); nothing was changed", c.Path, etag, a.IfMatch).
				With("path", c.Path).With("etag", etag)
		}
		meta := metadata.Parse([]byte(c.Content))
		i, cands := meta.FindSection(a.Heading)
		if i < 0 {
			if len(cands) > 0 {
				return note.HeadingRenamed{}, patch.AmbiguousHeading(fmt.Sprintf("the heading %q matches %d headings in %s; nothing was changed", a.Heading, len(cands), c.Path), cands)
			}
			return note.HeadingRenamed{}, patch.MissingHeading(meta, a.Heading, fmt.Sprintf("no heading %q in %s; nothing was changed", a.Heading, c.Path)).With("path", c.Path)
		}
		to := strings.TrimSpace(a.To)
		out := note.HeadingRenamed{Path: c.Path, ETag: etag, From: meta.Headings[i].Text, To: to, Paths: []string{}, DryRun: a.DryRun}
		if to == out.From {
			return out, nil // nothing to do; the note stays as it is
		}
		for k, h := range meta.Headings {
			if k != i && links.HeadingKey(h.Text) == links.HeadingKey(to) {
				// Links name a heading by its text: two alike could not be
				// told apart, and links to the other would change meaning.
				return note.HeadingRenamed{}, errors.InvalidFields(errors.Field{Field: "to",
					Message: fmt.Sprintf("another heading of %s (line %d) is already %q: links could not tell the two apart; choose another text", c.Path, h.Line, h.Text)})
			}
		}
		plan := note.HeadingPlan{Target: c.Path, IfMatch: etag, Outline: patch.Outline(meta), Index: i, To: to}
		bl, err := v.Graph.Backlinks(ctx, note.ByPath(c.Path))
		if err != nil {
			return note.HeadingRenamed{}, err
		}
		for _, l := range bl.Backlinks {
			if l.Path != c.Path && !slices.Contains(plan.Paths, l.Path) {
				plan.Paths = append(plan.Paths, l.Path)
			}
		}
		slices.Sort(plan.Paths)
		if !a.DryRun && v.Headings != nil {
			res, err := v.Headings.RenameHeading(ctx, plan)
			if !errors.Is(err, ErrNoBulk) {
				res.DryRun = false
				slices.Sort(res.Paths)
				return res, err
			}
		}
		return renameHeadingByNote(ctx, v, plan, out)
	},
}

// renameHeadingByNote carries out plan note by note (no vault folder to
// journal in), or in a dry run works out what it would change.
func renameHeadingByNote(ctx context.Context, v Vault, plan note.HeadingPlan, out note.HeadingRenamed) (note.HeadingRenamed, error) {
	files, err := allFiles(ctx, v)
	if err != nil {
		return out, err
	}
	ix := links.NewIndex(files)
	for k, p := range append([]string{plan.Target}, plan.Paths...) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		n := 0
		change := func(cur []byte) ([]byte, error) {
			next, _, k, err := patch.RenameHeading(cur, p, plan, ix)
			n = k
			return next, err
		}
		if out.DryRun {
			c, err := v.Notes.Read(ctx, note.ByPath(p))
			if err == nil {
				_, err = change([]byte(c.Content))
			}
			if err != nil {
				out.Failed = append(out.Failed, note.FailedNote{Path: p, Message: errors.From(err).Message})
				continue
			}
		} else {
			ifMatch := ""
			if k == 0 {
				ifMatch = plan.IfMatch // the note itself: the version the plan was made from
			}
			ed, err := v.Edit.Edit(ctx, note.ByPath(p), ifMatch, change)
			if err != nil {
				if k == 0 || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					return out, err
				}
				out.Failed = append(out.Failed, note.FailedNote{Path: p, Message: errors.From(err).Message})
				continue
			}
			if k == 0 {
				out.ETag = ed.ETag
			}
		}
		if n > 0 {
			out.Notes++
			out.Links += n
			if len(out.Paths) < note.MaxListed {
				out.Paths = append(out.Paths, p)
			}
		}
	}
	slices.Sort(out.Paths)
	return out, nil
}

// allFiles is every file of the vault the server may see, for resolving
// links.
func allFiles(ctx context.Context, v Vault) ([]string, error) {
	var out []string
	for off := 0; ; {
		l, err := v.Files.List(ctx, note.ListRequest{Recursive: true, Offset: off, Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, e := range l.Entries {
			if e.Type != "folder" {
				out = append(out, e.Path)
			}
		}
		off += len(l.Entries)
		if len(l.Entries) == 0 || off >= l.Total {
			return out, nil
		}
	}
}
