package tools

import (
	"context"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

// A tool of its own rather than an argument of obsidian_replace_in_note:
// it takes a scope (a folder, a tag) where that one takes a note, it is a
// dry run unless told to apply (that one writes unless told not to), and
// its answer is many notes with a diff each.
type replaceInVaultArgs struct {
	Find    string `json:"find" jsonschema:"Text, or RE2 with regex." validate:"required"`
	Replace string `json:"replace,omitempty" jsonschema:"$1: a group (regex)."`
	Regex   bool   `json:"regex,omitempty" jsonschema:"find is RE2."`
	Folder  string `json:"folder,omitempty" jsonschema:"Only this folder." validate:"omitempty,max=1000,nocontrols"`
	Tag     string `json:"tag,omitempty" jsonschema:"Only this tag." validate:"omitempty,max=200"`
	// Everywhere lets the replace match inside fenced code blocks and the
	// frontmatter too.
	Everywhere bool `json:"everywhere,omitempty" jsonschema:"Code and frontmatter too."`
	Apply      bool `json:"apply,omitempty" jsonschema:"Write (else a dry run)."`
	// ETags pins an apply to the notes of a dry run, each as it was then.
	ETags map[string]string `json:"etags,omitempty" jsonschema:"From the dry run."`
}

// Bounds of one call: notes looked at, notes changed, notes shown with
// their diffs, and the diffs' bytes in all.
const (
	maxScanned      = 50_000
	maxReplaced     = 1_000
	maxShown        = 100
	maxDiffsInTotal = 100_000
)

type noteReplaced struct {
	Path         string `json:"path"`
	ETag         string `json:"etag" jsonschema:"the note's version the diff is of; pass them back as etags to apply"`
	Replacements int    `json:"replacements"`
	Lines        []int  `json:"lines" jsonschema:"1-based lines of the matches"`
	Diff         string `json:"diff,omitempty" jsonschema:"dry run: the note's unified diff (cut when long)"`
}

type vaultReplaced struct {
	Notes        int            `json:"notes" jsonschema:"notes changed (or that would be)"`
	Replacements int            `json:"replacements"`
	Changed      []noteReplaced `json:"changed" jsonschema:"the notes, by path (at most 100 shown)"`
	NotShown     int            `json:"not_shown,omitempty" jsonschema:"notes changed beyond those shown"`
	Failed       []failedNote   `json:"failed,omitempty" jsonschema:"notes that were not changed, with why (one changed since the dry run: REVISION_CONFLICT)"`
	DryRun       bool           `json:"dry_run,omitempty" jsonschema:"true when nothing was written: pass apply (and the etags) to write"`
}

var replaceInVault = spec[replaceInVaultArgs, vaultReplaced]{
	name:        "obsidian_replace_in_vault",
	toolset:     "edit",
	confirm:     func(args map[string]any) bool { apply, _ := args["apply"].(bool); return apply },
	title:       "Replace across notes",
	description: "Replace `find` in all notes, outside code and frontmatter unless `everywhere`; a dry run with diffs unless `apply`.",
	hints:       hints{destructive: true},
	run: func(ctx context.Context, v Vault, a replaceInVaultArgs) (vaultReplaced, error) {
		re, err := patch.Pattern(a.Find, a.Regex)
		if err != nil {
			return vaultReplaced{}, err
		}
		paths, err := replaceCandidates(ctx, v, a)
		if err != nil {
			return vaultReplaced{}, err
		}
		scope := patch.Scope{Code: a.Everywhere, Frontmatter: a.Everywhere}
		out := vaultReplaced{Changed: []noteReplaced{}, DryRun: !a.Apply}
		// First every note is read and its replace computed, so that a
		// replace too large is refused before anything is written.
		type found struct {
			one  noteReplaced
			diff func() string
		}
		var todo []found
		for _, p := range paths {
			if err := ctx.Err(); err != nil {
				return vaultReplaced{}, err
			}
			c, err := v.Notes.Read(ctx, note.ByPath(p))
			if err != nil {
				out.Failed = append(out.Failed, failedNote{Path: p, Message: errors.From(err).Message})
				continue
			}
			etag := note.ETag([]byte(c.Content))
			if want, pinned := a.ETags[p]; pinned && want != etag {
				out.Failed = append(out.Failed, failedNote{Path: p, Message: "REVISION_CONFLICT: changed since the dry run; run it again"})
				continue
			}
			r := patch.ReplaceIn([]byte(c.Content), re, a.Replace, a.Regex, scope)
			if len(r.Lines) == 0 {
				continue
			}
			if len(todo) == maxReplaced {
				return vaultReplaced{}, errors.E(errors.InvalidParams, "find matches in more than %d notes; nothing was changed", maxReplaced).
					WithHint("Narrow it with folder or tag, and replace in several calls.")
			}
			before, after := c.Content, string(r.Content)
			todo = append(todo, found{noteReplaced{Path: p, ETag: etag, Replacements: len(r.Lines), Lines: r.Lines},
				func() string { return udiff.Unified("a/"+p, "b/"+p, before, after) }})
		}
		diffs := 0
		for _, f := range todo {
			one := f.one
			if a.Apply {
				// Against the note as read: an edit made since is never
				// written over (the note is listed in failed).
				change := func(cur []byte) ([]byte, error) {
					return patch.ReplaceIn(cur, re, a.Replace, a.Regex, scope).Content, nil
				}
				if _, err := v.Edit.Edit(ctx, note.ByPath(one.Path), one.ETag, change); err != nil {
					out.Failed = append(out.Failed, failedNote{Path: one.Path, Message: errors.From(err).Message})
					continue
				}
			} else if diffs < maxDiffsInTotal && len(out.Changed) < maxShown {
				d := f.diff()
				if len(d) > 4000 {
					d = d[:strings.LastIndexByte(d[:4000], '\n')+1] + "(cut: read the note for the rest)\n"
				}
				one.Diff = d
				diffs += len(d)
			}
			out.Notes++
			out.Replacements += len(one.Lines)
			if len(out.Changed) < maxShown {
				out.Changed = append(out.Changed, one)
			} else {
				out.NotShown++
			}
		}
		return out, nil
	},
}

// replaceCandidates are the notes a replace looks at, by path: the
// pinned ones (etags), else those of the tag, else every note of the
// folder (the whole vault without one).
func replaceCandidates(ctx context.Context, v Vault, a replaceInVaultArgs) ([]string, error) {
	if v.Notes == nil || v.Edit == nil || v.Files == nil {
		return nil, errors.E(errors.Unsupported, "this backend cannot replace across notes")
	}
	folder := strings.Trim(a.Folder, "/")
	inFolder := func(p string) bool { return folder == "" || strings.HasPrefix(p, folder+"/") }
	var paths []string
	switch {
	case a.ETags != nil:
		for p := range a.ETags {
			if inFolder(p) {
				paths = append(paths, p)
			}
		}
	case a.Tag != "":
		tag, err := patch.CleanTag("tag", a.Tag)
		if err != nil {
			return nil, err
		}
		if v.Meta == nil {
			return nil, errors.E(errors.Unsupported, "this backend cannot find notes by tag")
		}
		tagged, err := v.Meta.Tagged(ctx, tag)
		if err != nil {
			return nil, err
		}
		for _, p := range tagged {
			if inFolder(p) {
				paths = append(paths, p)
			}
		}
	default:
		for offset := 0; ; {
			page, err := v.Files.List(ctx, note.ListRequest{Folder: folder, Recursive: true, Ext: "md", Offset: offset, Limit: 1000})
			if err != nil {
				return nil, err
			}
			for _, e := range page.Entries {
				if e.Type == "file" {
					paths = append(paths, e.Path)
				}
			}
			offset += len(page.Entries)
			if len(page.Entries) == 0 || offset >= page.Total {
				break
			}
			if offset > maxScanned {
				return nil, errors.E(errors.InvalidParams, "the vault holds more than %d notes in scope; nothing was changed", maxScanned).
					WithHint("Narrow it with folder or tag.")
			}
		}
	}
	slices.Sort(paths)
	if len(paths) > maxScanned {
		return nil, errors.E(errors.InvalidParams, "%d notes in scope, more than %d; nothing was changed", len(paths), maxScanned).WithHint("Narrow it with folder or tag.")
	}
	return paths, nil
}
