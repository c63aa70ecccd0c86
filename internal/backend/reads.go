package backend

import (
	"context"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// The read side: from the folder when there is one, else the app; every
// answer less the notes the policy hides (the folder's answers are made
// without them; the app's are filtered here).

// search implements tools.Searcher. The app's search answers its lines
// without marks: they are marked here as the folder's index marks its
// snippets.
type search struct{ r *Router }

func (s search) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	res, err := preferFolder(ctx, s.r, "search", func(b side) (note.SearchResult, error) {
		res, err := b.Search.Search(ctx, req)
		if b.mode == CLI && req.Mode != note.SearchRegex {
			for i := range res.Hits {
				for j, sn := range res.Hits[i].Snippets {
					res.Hits[i].Snippets[j].Text = vaultindex.Highlight(req.Query, sn.Text)
				}
			}
		}
		return res, err
	})
	if err == nil {
		res.Hits = visible(ctx, s.r, res.Hits, func(h note.Hit) string { return h.Path })
	}
	return res, err
}

// files implements tools.Lister.
type files struct{ r *Router }

func (f files) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	res, err := preferFolder(ctx, f.r, "list", func(b side) (note.Listing, error) { return b.Files.List(ctx, req) })
	if pol := f.r.Policy(ctx); err == nil && pol.Hides() {
		// Folders are the backend's to judge: a hidden folder may lead
		// to visible notes (policy.Folders).
		res.Entries = slices.DeleteFunc(res.Entries, func(e note.Entry) bool { return e.Type == "file" && pol.Hidden(e.Path) })
	}
	return res, err
}

// graph implements tools.LinkGraph: a link to a hidden note is shown as
// it is written, leading nowhere.
type graph struct{ r *Router }

func (g graph) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	res, pol, err := readNote(ctx, g.r, loc, func() (note.Links, error) {
		return preferFolder(ctx, g.r, "links", func(b side) (note.Links, error) { return b.Graph.Links(ctx, loc) })
	}, func(l note.Links) string { return l.Path })
	if err != nil {
		return note.Links{}, err
	}
	for i, l := range res.Links {
		if l.Path != "" && pol.Hidden(l.Path) {
			res.Links[i].Path, res.Links[i].Resolved = "", false
		}
	}
	return res, nil
}

func (g graph) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	res, pol, err := readNote(ctx, g.r, loc, func() (note.Backlinks, error) {
		return preferFolder(ctx, g.r, "backlinks", func(b side) (note.Backlinks, error) { return b.Graph.Backlinks(ctx, loc) })
	}, func(b note.Backlinks) string { return b.Path })
	if err != nil {
		return note.Backlinks{}, err
	}
	n := len(res.Backlinks)
	res.Backlinks = slices.DeleteFunc(res.Backlinks, func(r note.LinkRef) bool { return pol.Hidden(r.Path) })
	res.Total -= n - len(res.Backlinks)
	return res, nil
}

func (g graph) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	res, err := preferFolder(ctx, g.r, "unresolved", func(b side) ([]note.Unresolved, error) { return b.Graph.Unresolved(ctx) })
	if pol := g.r.Policy(ctx); err == nil && pol.Hides() {
		for i := range res {
			res[i].Sources = slices.DeleteFunc(res[i].Sources, func(r note.LinkRef) bool { return pol.Hidden(r.Path) })
		}
	}
	return res, err
}

func (g graph) Orphans(ctx context.Context) ([]string, error) {
	res, err := preferFolder(ctx, g.r, "orphans", func(b side) ([]string, error) { return b.Graph.Orphans(ctx) })
	if err == nil {
		res = g.r.Policy(ctx).Files(res)
	}
	return res, err
}

// meta implements tools.Metadata. Counts are the backend's, made over the
// visible notes only.
type meta struct{ r *Router }

func (m meta) Tags(ctx context.Context) ([]note.TagCount, error) {
	return preferFolder(ctx, m.r, "tags", func(b side) ([]note.TagCount, error) { return b.Meta.Tags(ctx) })
}

func (m meta) Tagged(ctx context.Context, tag string) ([]string, error) {
	res, err := preferFolder(ctx, m.r, "tagged", func(b side) ([]string, error) { return b.Meta.Tagged(ctx, tag) })
	if err == nil {
		res = m.r.Policy(ctx).Files(res)
	}
	return res, err
}

func (m meta) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return preferFolder(ctx, m.r, "properties", func(b side) ([]note.PropertyStat, error) { return b.Meta.Properties(ctx) })
}

// basesQuery implements tools.BaseQuerier: from the vault folder, whose
// evaluation is documented, else through the app's base:query. A hidden
// base is refused like a hidden note, and hidden files are left out of
// its rows.
type basesQuery struct{ r *Router }

func (q basesQuery) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	res, _, err := readNote(ctx, q.r, loc, func() (bases.Result, error) {
		return preferFolder(ctx, q.r, "base", func(b side) (bases.Result, error) { return b.Bases.QueryBase(ctx, loc, view) })
	}, func(r bases.Result) string { return r.Path })
	if err != nil {
		return res, err
	}
	if q.r.Policy(ctx).Restricts() && slices.ContainsFunc(res.Rows, func(r bases.Row) bool { return r.Path == "" }) {
		return bases.Result{}, errors.E(errors.PermissionDenied, "the app's answer does not say which file each row is, so the folder policy cannot be kept; nothing is shown").
			WithHint("Give the server the vault folder (--vault-path), where bases are evaluated natively.")
	}
	res.Rows = visible(ctx, q.r, res.Rows, func(r bases.Row) string { return r.Path })
	res.Total = len(res.Rows)
	return res, nil
}

// dataviewQuery implements tools.DataviewQuerier from the vault folder:
// the app's Dataview is not asked (docs/cli.md says why). The origin is
// held to the policy like a note read; the engine leaves hidden notes
// out of the pages a query sees.
type dataviewQuery struct{ r *Router }

func (q dataviewQuery) QueryDataview(ctx context.Context, dq note.DataviewQuery) (*dataview.Result, error) {
	if err := named(q.r.readPolicy(ctx), dq.Origin); err != nil {
		return nil, err
	}
	return preferFolder(ctx, q.r, "dataview", func(b side) (*dataview.Result, error) {
		if b.Dataview == nil {
			return nil, errors.E(errors.Unsupported, "Dataview queries are answered from the vault folder, and the app did not say where it is").
				WithHint("Give the server the vault folder (--vault-path), or start Obsidian so that it can say.")
		}
		return b.Dataview.QueryDataview(ctx, dq)
	})
}
