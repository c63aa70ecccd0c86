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
	Find    string `json:"find" jsonschema:"The text to find, exactly as it is in the note (spaces, line breaks and case count), or with regex an RE2 regular expression ((?i) ignores case, (?m) makes ^ and $ match at each line)." validate:"required"`
	Replace string `json:"replace,omitempty" jsonschema:"What to put instead, stored exactly as sent; empty deletes the match. With regex, $1 or ${name} insert a group (write $$ for a literal $)."`
	Regex   bool   `json:"regex,omitempty" jsonschema:"Treat find as an RE2 regular expression. Default false: exact text."`
	All     bool   `json:"all,omitempty" jsonschema:"Replace every match. Default false: find must match exactly once, and several matches fail naming their lines."`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"Change nothing: return the unified diff the replacement would make."`
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
}

var replaceInNote = spec[replaceInNoteArgs, replaceResult]{
	name:  "obsidian_replace_in_note",
	title: "Find and replace in note",
	description: "Replace text in one note: exact text (`find`) or, with `regex`, an RE2 regular expression, by `replace`; every other byte stays as it was. " +
		"`find` must match exactly once unless `all` is true: several matches fail naming their lines, so widen `find` with surrounding text. " +
		"Text written with \\n also matches a note with CRLF line ends. `dry_run` returns the unified diff and writes nothing. " +
		"Pass the etag you read as `if_match` to refuse the edit if the note changed meanwhile (REVISION_CONFLICT). Returns {path, etag, changed, replacements, lines, diff}.",
	hints: hints{destructive: true},
	run: func(ctx context.Context, v Vault, a replaceInNoteArgs) (replaceResult, error) {
		var lines []int
		change := func(cur []byte) ([]byte, error) {
			r, err := patch.ReplaceText(cur, a.Find, a.Replace, a.Regex, a.All)
			if err != nil {
				return nil, err
			}
			lines = r.Lines
			return r.Content, nil
		}
		if a.DryRun {
			c, err := v.Notes.Read(ctx, a.note())
			if err != nil {
				return replaceResult{}, err
			}
			next, err := note.IfMatch(c.Path, a.IfMatch, change)([]byte(c.Content))
			if err != nil {
				return replaceResult{}, err
			}
			diff, cut := capDiff(udiff.Unified("a/"+c.Path, "b/"+c.Path, c.Content, string(next)))
			return replaceResult{Edited: note.Edited{Path: c.Path, ETag: note.ETag([]byte(c.Content))},
				Replacements: len(lines), Lines: lines, DryRun: true, Diff: diff, DiffTruncated: cut}, nil
		}
		res, err := v.Edit.Edit(ctx, a.note(), a.IfMatch, change)
		if err != nil {
			return replaceResult{}, err
		}
		return replaceResult{Edited: res, Replacements: len(lines), Lines: lines}, nil
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
