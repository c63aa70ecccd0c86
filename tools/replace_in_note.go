package tools

import (
	"context"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

type replaceInNoteArgs struct {
	locator
	version
	Find    string `json:"find" jsonschema:"Exact text to find, or with regex an RE2 pattern ((?i) ignores case)." validate:"required"`
	Replace string `json:"replace,omitempty" jsonschema:"The replacement; with regex, $1 inserts a group."`
	Regex   bool   `json:"regex,omitempty" jsonschema:"find is an RE2 pattern."`
	All     bool   `json:"all,omitempty" jsonschema:"Replace every match."`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"Only return the diff."`
}

// maxDiff bounds the diff a dry run returns.
const maxDiff = 50_000

type replaceResult struct {
	note.Edited
	Replacements  int    `json:"replacements" jsonschema:"how many matches were (or, in a dry run, would be) replaced"`
	Lines         []int  `json:"lines" jsonschema:"the 1-based lines where the matches start"`
	DryRun        bool   `json:"dry_run,omitempty" jsonschema:"true when nothing was written"`
	Diff          string `json:"diff,omitempty" jsonschema:"dry run: the unified diff of the change"`
	DiffTruncated bool   `json:"diff_truncated,omitempty" jsonschema:"true when the diff was over 50 KB and was cut at a line end"`
	// LinksBroken are the links to a heading the replacement renamed or
	// removed (obsidian_rename_heading keeps them).
	LinksBroken []BrokenLink `json:"links_broken,omitempty" jsonschema:"links to a heading this edit renamed or removed, which now lead to no heading"`
}

var replaceInNote = spec[replaceInNoteArgs, replaceResult]{
	name:        "obsidian_replace_in_note",
	toolset:     "edit",
	title:       "Find and replace in note",
	description: "Replace `find` (exact text, or RE2 with `regex`) by `replace` in a note. `find` must match once unless `all`; several matches fail naming their lines. `dry_run` returns the diff only. Returns {path, etag, changed, replacements, lines, diff}.",
	hints:       hints{destructive: true},
	run: func(ctx context.Context, v Vault, a replaceInNoteArgs) (replaceResult, error) {
		var lines []int
		var before, after []byte
		change := func(cur []byte) ([]byte, error) {
			r, err := patch.ReplaceText(cur, a.Find, a.Replace, a.Regex, a.All)
			if err != nil {
				return nil, err
			}
			lines, before, after = r.Lines, cur, r.Content
			return r.Content, nil
		}
		if a.DryRun {
			c, err := readText(ctx, v, a.note())
			if err != nil {
				return replaceResult{}, err
			}
			next, err := note.IfMatch(c.Path, a.IfMatch, change)([]byte(c.Content))
			if err != nil {
				return replaceResult{}, err
			}
			diff, cut := capDiff(udiff.Unified("a/"+c.Path, "b/"+c.Path, c.Content, string(next)))
			return replaceResult{Edited: note.Edited{Path: c.Path, ETag: note.ETag([]byte(c.Content))},
				Replacements: len(lines), Lines: lines, DryRun: true, Diff: diff, DiffTruncated: cut,
				LinksBroken: brokenLinks(ctx, v, c.Path, before, after)}, nil
		}
		res, err := v.Edit.Edit(ctx, a.note(), a.IfMatch, change)
		if err != nil {
			return replaceResult{}, err
		}
		out := replaceResult{Edited: res, Replacements: len(lines), Lines: lines}
		if res.Changed {
			out.LinksBroken = brokenLinks(ctx, v, res.Path, before, after)
		}
		return out, nil
	},
}

// capDiff cuts a diff over maxDiff at a line end.
func capDiff(d string) (string, bool) {
	if len(d) <= maxDiff {
		return d, false
	}
	cut := strings.LastIndexByte(d[:maxDiff], '\n') + 1
	return d[:cut], true
}
