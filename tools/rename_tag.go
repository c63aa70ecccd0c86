package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

type renameTagArgs struct {
	From   string `json:"from" jsonschema:"The tag, e.g. proj; proj/alpha follows." validate:"required"`
	To     string `json:"to" jsonschema:"The new name, with or without #, e.g. project or area/work." validate:"required"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Change nothing: report how many notes and uses would change."`
}

// maxReported bounds the paths a vault-wide change lists.
const maxReported = 100

type tagRenamed struct {
	From   string       `json:"from" jsonschema:"the tag renamed"`
	To     string       `json:"to" jsonschema:"its new name"`
	Notes  int          `json:"notes" jsonschema:"notes changed (or, in a dry run, that would change)"`
	Uses   int          `json:"uses" jsonschema:"tag uses renamed, in frontmatter and text"`
	Paths  []string     `json:"paths" jsonschema:"the notes, sorted (at most 100)"`
	Failed []failedNote `json:"failed,omitempty" jsonschema:"notes that could not be changed, with why; the others were"`
	DryRun bool         `json:"dry_run,omitempty" jsonschema:"true when nothing was written"`
}

type failedNote struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

var renameTag = spec[renameTagArgs, tagRenamed]{
	name:        "obsidian_rename_tag",
	toolset:     "edit",
	title:       "Rename tag everywhere",
	description: "Rename a tag in every note (frontmatter lists and inline #tags, nested tags included). Try `dry_run` first. Notes that cannot be written are listed in `failed`. Returns {from, to, notes, uses, paths, failed}.",
	hints:       hints{destructive: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a renameTagArgs) (tagRenamed, error) {
		from, err := patch.CleanTag("from", a.From)
		if err != nil {
			return tagRenamed{}, err
		}
		to, err := patch.CleanTag("to", a.To)
		if err != nil {
			return tagRenamed{}, err
		}
		paths, err := v.Meta.Tagged(ctx, from)
		if err != nil {
			return tagRenamed{}, err
		}
		out := tagRenamed{From: from, To: to, Paths: []string{}, DryRun: a.DryRun}
		if !a.DryRun && v.Tags != nil {
			res, err := v.Tags.RenameTag(ctx, from, to, paths)
			if !errors.Is(err, ErrNoBulk) {
				out.Notes, out.Uses, out.Paths = res.Notes, res.Uses, res.Paths
				for _, f := range res.Failed {
					out.Failed = append(out.Failed, failedNote(f))
				}
				slices.Sort(out.Paths)
				if err != nil {
					return tagRenamed{}, partly(err, out)
				}
				return out, nil
			}
		}
		for _, p := range paths {
			if err := ctx.Err(); err != nil {
				return tagRenamed{}, err
			}
			uses := 0
			change := func(cur []byte) ([]byte, error) {
				r, n, err := patch.RenameTag(cur, from, to)
				uses = n
				return r.Content, err
			}
			if a.DryRun {
				c, err := v.Notes.Read(ctx, note.ByPath(p))
				if err == nil {
					_, err = change([]byte(c.Content))
				}
				if err != nil {
					out.Failed = append(out.Failed, failedNote{Path: p, Message: errors.From(err).Message})
					continue
				}
			} else if _, err := v.Edit.Edit(ctx, note.ByPath(p), "", change); err != nil {
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					return tagRenamed{}, partly(err, out)
				}
				out.Failed = append(out.Failed, failedNote{Path: p, Message: errors.From(err).Message})
				continue
			}
			if uses > 0 {
				out.Notes++
				out.Uses += uses
				if len(out.Paths) < maxReported {
					out.Paths = append(out.Paths, p)
				}
			}
		}
		return out, nil
	},
}

// partly is a vault-wide edit's error when it stopped part way (cancelled,
// or out of time): the error says what was done, so the caller knows what
// to run again, rather than only that it stopped.
func partly(err error, done tagRenamed) error {
	e := *errors.From(err)
	e.Message += fmt.Sprintf("; the tag was renamed in %d notes before it stopped (listed in data.done), the others are unchanged", done.Notes)
	e.Hint = "Run the same rename again to finish it, unless the new name is nested under the old one (proj to proj/sub): then rename the rest note by note, as data.done lists the notes already renamed."
	return (&e).With("done", done)
}
