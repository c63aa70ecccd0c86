package native

import (
	"context"
	"encoding/json"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// QueryBase answers a view of the base at loc over every file of the
// vault: notes with their properties, tags and links, other files with
// their file facts.
func (v *Engine) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	p, err := v.locate(ctx, loc)
	if err != nil {
		return bases.Result{}, err
	}
	data, err := atomicfile.ReadSettled(v.root, p, &v.published)
	if err != nil {
		return bases.Result{}, FileError(err, p)
	}
	b, err := bases.Parse(data)
	if err != nil {
		return bases.Result{}, errors.E(errors.Unsupported, "%s %v", p, err).WithHint("Fix the base's YAML in Obsidian, or read it with obsidian_read_note.")
	}
	b.Types = v.propertyTypes()
	paths, err := v.Files()
	if err != nil {
		return bases.Result{}, err
	}
	type noteFacts struct {
		meta  *metadata.Note
		links []string
	}
	notes := map[string]noteFacts{}
	if err := v.index().Each(ctx, func(path string, meta *metadata.Note, links []string) {
		notes[path] = noteFacts{meta, links}
	}); err != nil {
		return bases.Result{}, err
	}
	files := make([]bases.File, 0, len(paths))
	for _, f := range paths {
		fi, err := v.root.Stat(f) // through the jail: a link out of the vault tells nothing
		if err != nil {
			continue // gone since it was listed
		}
		bf := bases.File{Path: f, Size: fi.Size(), Mtime: fi.ModTime(), Ctime: fi.ModTime()}
		if c, _, ok := v.fileTimes(f); ok {
			bf.Ctime = c
		}
		if n, ok := notes[f]; ok && note.IsMarkdown(f) {
			bf.Props, bf.Links = n.meta.Properties, n.links
			for _, t := range n.meta.Tags {
				bf.Tags = append(bf.Tags, t.Name)
			}
		}
		files = append(files, bf)
	}
	res, err := b.Query(ctx, view, files, time.Now())
	if err != nil {
		if bases.IsUnsupported(err) {
			return bases.Result{}, errors.E(errors.Unsupported, "%s: %v; nothing was guessed", p, err).
				WithHint("This server evaluates the documented Bases functions listed in its README; open the base in Obsidian for the rest.")
		}
		if bases.IsNoView(err) {
			return bases.Result{}, errors.E(errors.InvalidParams, "%s: %v", p, err).
				WithHint("Pass one of the views named (obsidian_query_base without view lists them).")
		}
		return bases.Result{}, errors.E(errors.InvalidParams, "%s: %v", p, err).
			WithHint("The base itself is at fault where the message says: fix it in Obsidian, or with obsidian_replace_in_note on the .base file.")
	}
	res.Path = p
	return res, nil
}

// propertyTypes are the vault's property types as Obsidian keeps them
// (.obsidian/types.json: {"types": {"due": "date", …}}); none when the
// file is missing or unreadable, as in a vault Obsidian never typed.
func (v *Engine) propertyTypes() map[string]string {
	data, err := v.readSmall(".obsidian/types.json", maxConfig)
	if err != nil {
		return nil
	}
	var f struct {
		Types map[string]string `json:"types"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil
	}
	return f.Types
}
