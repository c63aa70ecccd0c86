package vaultindex

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// graph is the vault's resolved links, computed when first asked for after
// a change: resolving depends on every file name, so any added, removed or
// edited note can change it.
type graph struct {
	in         map[string][]note.LinkRef // target path → links to it
	unresolved []note.Unresolved
}

// sortedIDs returns the live notes' ids in path order.
func (ix *Index) sortedIDs() []uint32 {
	ids := make([]uint32, 0, ix.count)
	for id, d := range ix.docs {
		if d != nil {
			ids = append(ids, uint32(id))
		}
	}
	sort.Slice(ids, func(a, b int) bool { return ix.docs[ids[a]].path < ix.docs[ids[b]].path })
	return ids
}

func (ix *Index) linkGraph() *graph {
	if ix.graph != nil {
		return ix.graph
	}
	g := &graph{in: map[string][]note.LinkRef{}}
	type unres struct {
		u     *note.Unresolved
		order int
	}
	un := map[string]*unres{}
	for _, id := range ix.sortedIDs() {
		d := ix.docs[id]
		for _, l := range d.meta.Links {
			if target := ix.linkIx.Resolve(l.Target, d.path); target != "" {
				g.in[target] = append(g.in[target], note.LinkRef{Path: d.path, Line: l.Line})
				continue
			}
			key := strings.ToLower(l.Target)
			u := un[key]
			if u == nil {
				u = &unres{u: &note.Unresolved{Target: l.Target}, order: len(un)}
				un[key] = u
			}
			u.u.Count++
			if len(u.u.Sources) < 10 {
				u.u.Sources = append(u.u.Sources, note.LinkRef{Path: d.path, Line: l.Line})
			}
		}
	}
	for _, u := range un {
		g.unresolved = append(g.unresolved, *u.u)
	}
	sort.Slice(g.unresolved, func(a, b int) bool {
		ua, ub := g.unresolved[a], g.unresolved[b]
		if ua.Count != ub.Count {
			return ua.Count > ub.Count
		}
		return ua.Target < ub.Target
	})
	ix.graph = g
	return g
}

func notIndexed(p string) error {
	return errors.E(errors.FileNotFound, "%s is not a Markdown note or a canvas: links, backlinks and tags are only read from .md notes and .canvas files", p)
}

// Links returns the note's outgoing links, each resolved.
func (ix *Index) Links(ctx context.Context, p string) (note.Links, error) {
	res := note.Links{Path: p, Links: []note.OutLink{}}
	err := ix.view(ctx, func() error {
		id, ok := ix.byPath[p]
		if !ok {
			return notIndexed(p)
		}
		for _, l := range ix.docs[id].meta.Links {
			target := ix.linkIx.Resolve(l.Target, p)
			res.Links = append(res.Links, note.OutLink{Target: l.Target, Subpath: l.Subpath, Path: target, Resolved: target != "", Line: l.Line, Embed: l.Embed})
		}
		return nil
	})
	return res, err
}

// Backlinks returns the links to the file at p, by source path then line.
func (ix *Index) Backlinks(ctx context.Context, p string) ([]note.LinkRef, error) {
	var out []note.LinkRef
	err := ix.view(ctx, func() error {
		out = append([]note.LinkRef{}, ix.linkGraph().in[p]...)
		return nil
	})
	return out, err
}

// Each calls fn with every note and canvas, its structure and the paths
// its links resolve to, in path order.
func (ix *Index) Each(ctx context.Context, fn func(path string, meta *metadata.Note, links []string)) error {
	return ix.view(ctx, func() error {
		for _, id := range ix.sortedIDs() {
			d := ix.docs[id]
			var out []string
			for _, l := range d.meta.Links {
				if t := ix.linkIx.Resolve(l.Target, d.path); t != "" {
					out = append(out, t)
				}
			}
			fn(d.path, d.meta, out)
		}
		return nil
	})
}

// Linked is the set of files that another file links to or embeds.
func (ix *Index) Linked(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	err := ix.view(ctx, func() error {
		for target, refs := range ix.linkGraph().in {
			for _, r := range refs {
				if r.Path != target {
					out[target] = true
					break
				}
			}
		}
		return nil
	})
	return out, err
}

// Unresolved returns the link targets no file matches, most used first.
func (ix *Index) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	var out []note.Unresolved
	err := ix.view(ctx, func() error {
		out = append([]note.Unresolved{}, ix.linkGraph().unresolved...)
		return nil
	})
	return out, err
}

// Orphans returns the notes no other note links to, by path.
func (ix *Index) Orphans(ctx context.Context) ([]string, error) {
	var out []string
	err := ix.view(ctx, func() error {
		g := ix.linkGraph()
		out = []string{}
		for _, id := range ix.sortedIDs() {
			p := ix.docs[id].path
			if !note.IsMarkdown(p) {
				continue // a canvas is no note of the graph
			}
			linked := false
			for _, r := range g.in[p] {
				if r.Path != p {
					linked = true
					break
				}
			}
			if !linked {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// Tags counts the notes carrying each tag, a nested tag counting for its
// parents too, from frontmatter and inline tags. Tags compare without case;
// each is shown as first written (in path order).
func (ix *Index) Tags(ctx context.Context) ([]note.TagCount, error) {
	var out []note.TagCount
	err := ix.view(ctx, func() error {
		counts := map[string]*note.TagCount{}
		for _, id := range ix.sortedIDs() {
			seen := map[string]bool{}
			for _, t := range ix.docs[id].meta.Tags {
				parts := strings.Split(t.Name, "/")
				for k := 1; k <= len(parts); k++ {
					name := strings.Join(parts[:k], "/")
					key := strings.ToLower(name)
					if seen[key] {
						continue
					}
					seen[key] = true
					c := counts[key]
					if c == nil {
						c = &note.TagCount{Tag: name}
						counts[key] = c
					}
					c.Count++
				}
			}
		}
		out = make([]note.TagCount, 0, len(counts))
		for _, c := range counts {
			out = append(out, *c)
		}
		sort.Slice(out, func(a, b int) bool { return strings.ToLower(out[a].Tag) < strings.ToLower(out[b].Tag) })
		return nil
	})
	return out, err
}

// Tagged returns the notes carrying tag or a tag nested below it, by path.
func (ix *Index) Tagged(ctx context.Context, tag string) ([]string, error) {
	f := &filter{kind: "tag", value: Fold(strings.TrimPrefix(tag, "#"))}
	var out []string
	err := ix.view(ctx, func() error {
		out = []string{}
		for _, id := range ix.sortedIDs() {
			if f.match(ix.docs[id]) {
				out = append(out, ix.docs[id].path)
			}
		}
		return nil
	})
	return out, err
}

// Properties describes every frontmatter property name in the vault: how
// many notes have it and the types of its values. Names compare without
// case.
func (ix *Index) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	var out []note.PropertyStat
	err := ix.view(ctx, func() error {
		stats := map[string]*note.PropertyStat{}
		for _, id := range ix.sortedIDs() {
			for _, p := range ix.docs[id].meta.Properties {
				key := strings.ToLower(p.Key)
				s := stats[key]
				if s == nil {
					s = &note.PropertyStat{Name: p.Key}
					stats[key] = s
				}
				s.Count++
				if !slices.Contains(s.Types, p.Type) {
					s.Types = append(s.Types, p.Type)
				}
			}
		}
		out = make([]note.PropertyStat, 0, len(stats))
		for _, s := range stats {
			sort.Strings(s.Types)
			out = append(out, *s)
		}
		sort.Slice(out, func(a, b int) bool { return strings.ToLower(out[a].Name) < strings.ToLower(out[b].Name) })
		return nil
	})
	return out, err
}

func toString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return ""
}
