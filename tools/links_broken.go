package tools

import (
	"context"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// BrokenLink is a link to a heading that an edit removed or renamed:
// where it is, and what it says. obsidian_rename_heading is the way to
// rename a heading and keep its links.
type BrokenLink struct {
	Path string `json:"path" jsonschema:"the note holding the link"`
	Line int    `json:"line" jsonschema:"its 1-based line"`
	Link string `json:"link" jsonschema:"the link's target as written, e.g. Plan#Risks"`
}

// brokenLinks are the links to a heading of the note at p that before
// had and after (the edit's result) no longer has, at most note.MaxListed.
// It costs nothing when no heading went: only then are the notes linking
// to p read. A failure to read them is not the edit's: it answers none.
func brokenLinks(ctx context.Context, v Vault, p string, before, after []byte) []BrokenLink {
	gone := goneHeadings(before, after)
	if len(gone) == 0 || v.Graph == nil || v.Files == nil {
		return nil
	}
	bl, err := v.Graph.Backlinks(ctx, note.ByPath(p))
	if err != nil {
		return nil
	}
	sources := []string{p}
	for _, l := range bl.Backlinks {
		if !slices.Contains(sources, l.Path) {
			sources = append(sources, l.Path)
		}
	}
	files, err := allFiles(ctx, v)
	if err != nil {
		return nil
	}
	ix := links.NewIndex(files)
	outline := headingsOf(after)
	out := []BrokenLink{}
	for _, src := range sources {
		text := after
		if src != p {
			c, err := v.Notes.Read(ctx, note.ByPath(src))
			if err != nil {
				continue
			}
			text = []byte(c.Content)
		}
		lines := metadata.LinesOf(text)
		for _, l := range links.ScanAll(text) {
			if l.SubEnd <= l.SubStart || (l.Path == "" && src != p) || (l.Path != "" && ix.Resolve(l.Path, src) != p) {
				continue
			}
			if links.Leads(text, l, outline) || !gone[links.LastHeadingKey(text, l)] {
				continue
			}
			out = append(out, BrokenLink{Path: src, Line: lines.Of(l.Start), Link: string(text[l.Start:l.SubEnd])})
			if len(out) == note.MaxListed {
				return out
			}
		}
	}
	return out
}

// goneHeadings are the heading keys (links.HeadingKey) before has and
// after does not.
func goneHeadings(before, after []byte) map[string]bool {
	now := map[string]bool{}
	for _, h := range metadata.Parse(after).Headings {
		now[links.HeadingKey(h.Text)] = true
	}
	gone := map[string]bool{}
	for _, h := range metadata.Parse(before).Headings {
		if k := links.HeadingKey(h.Text); !now[k] {
			gone[k] = true
		}
	}
	return gone
}

func headingsOf(text []byte) []links.Heading {
	hs := metadata.Parse(text).Headings
	out := make([]links.Heading, len(hs))
	for i, h := range hs {
		out[i] = links.Heading{Level: h.Level, Text: h.Text}
	}
	return out
}
