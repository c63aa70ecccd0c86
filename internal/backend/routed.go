package backend

import (
	"context"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
	"github.com/obsidian-mcp/obsidian-mcp/vaultindex"
)

// Vault is the vault as the router serves it: each capability both
// backends have routed per Mode, a small type each; tasks and templates
// from the folder alone, the app's commands from the app alone. Ask is
// left to the caller.
func (r *Router) Vault() tools.Vault {
	return tools.Vault{
		Notes:     routedNotes{r},
		Search:    routedSearch{r},
		Files:     routedFiles{r},
		Graph:     routedGraph{r},
		Meta:      routedMeta{r},
		Edit:      routedEdit{r},
		Daily:     routedDaily{r},
		Bases:     routedBases{r},
		Tags:      routedTags{r},
		Tasks:     folderTasks{r},
		Templates: folderTemplates{r},
		Commands:  appCommands{r},
		Folders:   folderFolders{r},
	}
}

// routedNotes implements tools.Notes.
type routedNotes struct{ r *Router }

func (n routedNotes) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	r := n.r
	return serve(ctx, r, "create", true, func(b side) (note.Created, error) {
		res, err := b.Notes.Create(ctx, req)
		if b.mode == Native && err == nil && req.Open && r.App != nil && !r.appDown() {
			// Written to the folder (the CLI could not carry it); the app
			// still shows it. The note is written, so failing now would
			// invite a retry that finds it existing: report it not opened.
			if _, oerr := r.App.Notes.Open(ctx, note.ByPath(res.Path), false); oerr != nil {
				r.Logger.Warn("note created but not opened", "path", res.Path, "err", oerr)
			} else {
				res.Opened = true
			}
		}
		return res, err
	})
}

func (n routedNotes) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	return preferFolder(ctx, n.r, "read", func(b side) (note.Content, error) { return b.Notes.Read(ctx, loc) })
}

func (n routedNotes) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return serve(ctx, n.r, "append", true, func(b side) (note.Written, error) { return b.Notes.Append(ctx, loc, content, inline) })
}

func (n routedNotes) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return serve(ctx, n.r, "prepend", true, func(b side) (note.Written, error) { return b.Notes.Prepend(ctx, loc, content, inline) })
}

func (n routedNotes) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	return serve(ctx, n.r, "delete", true, func(b side) (note.Deleted, error) { return b.Notes.Delete(ctx, loc, permanent) })
}

func (n routedNotes) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	return serve(ctx, n.r, "move", true, func(b side) (note.Moved, error) { return b.Notes.Move(ctx, loc, to) })
}

func (n routedNotes) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	return serve(ctx, n.r, "rename", true, func(b side) (note.Moved, error) { return b.Notes.Rename(ctx, loc, newName) })
}

// Open: only the app can show a note, so it never falls back.
func (n routedNotes) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	return serve(ctx, n.r, "open", false, func(b side) (note.Opened, error) { return b.Notes.Open(ctx, loc, newTab) })
}

func (n routedNotes) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	return serve(ctx, n.r, "file_info", true, func(b side) (note.Info, error) { return b.Notes.FileInfo(ctx, loc) })
}

// routedSearch implements tools.Searcher. The app's search answers its
// lines without marks: they are marked here as the folder's index marks
// its snippets.
type routedSearch struct{ r *Router }

func (s routedSearch) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	return preferFolder(ctx, s.r, "search", func(b side) (note.SearchResult, error) {
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
}

// routedFiles implements tools.Lister.
type routedFiles struct{ r *Router }

func (f routedFiles) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	return preferFolder(ctx, f.r, "list", func(b side) (note.Listing, error) { return b.Files.List(ctx, req) })
}

// routedGraph implements tools.LinkGraph.
type routedGraph struct{ r *Router }

func (g routedGraph) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	return preferFolder(ctx, g.r, "links", func(b side) (note.Links, error) { return b.Graph.Links(ctx, loc) })
}

func (g routedGraph) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	return preferFolder(ctx, g.r, "backlinks", func(b side) (note.Backlinks, error) { return b.Graph.Backlinks(ctx, loc) })
}

func (g routedGraph) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return preferFolder(ctx, g.r, "unresolved", func(b side) ([]note.Unresolved, error) { return b.Graph.Unresolved(ctx) })
}

func (g routedGraph) Orphans(ctx context.Context) ([]string, error) {
	return preferFolder(ctx, g.r, "orphans", func(b side) ([]string, error) { return b.Graph.Orphans(ctx) })
}

// routedMeta implements tools.Metadata.
type routedMeta struct{ r *Router }

func (m routedMeta) Tags(ctx context.Context) ([]note.TagCount, error) {
	return preferFolder(ctx, m.r, "tags", func(b side) ([]note.TagCount, error) { return b.Meta.Tags(ctx) })
}

func (m routedMeta) Tagged(ctx context.Context, tag string) ([]string, error) {
	return preferFolder(ctx, m.r, "tagged", func(b side) ([]string, error) { return b.Meta.Tagged(ctx, tag) })
}

func (m routedMeta) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return preferFolder(ctx, m.r, "properties", func(b side) ([]note.PropertyStat, error) { return b.Meta.Properties(ctx) })
}

// routedEdit implements tools.Editor.
type routedEdit struct{ r *Router }

func (e routedEdit) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	return preferFolder(ctx, e.r, "edit", func(b side) (note.Edited, error) { return b.Edit.Edit(ctx, loc, ifMatch, change) })
}

// routedDaily implements tools.DailyNotes.
type routedDaily struct{ r *Router }

func (d routedDaily) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	return serve(ctx, d.r, "daily", true, func(b side) (note.Daily, error) { return b.Daily.Daily(ctx, req) })
}

// DailyPath implements PeriodPaths: where the daily note of date is, or
// would be created.
func (r *Router) DailyPath(ctx context.Context, date time.Time) (string, error) {
	return serve(ctx, r, "daily path", true, func(b side) (string, error) { return b.paths.DailyPath(ctx, date) })
}

// PeriodPath implements PeriodPaths: where the note of the period that
// holds date is, or would be created.
func (r *Router) PeriodPath(ctx context.Context, date time.Time, period string) (string, error) {
	return serve(ctx, r, "period path", true, func(b side) (string, error) { return b.paths.PeriodPath(ctx, date, period) })
}

// routedBases implements tools.BaseQuerier: from the vault folder, whose
// evaluation is documented, else through the app's base:query.
type routedBases struct{ r *Router }

func (q routedBases) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	return preferFolder(ctx, q.r, "base", func(b side) (bases.Result, error) { return b.Bases.QueryBase(ctx, loc, view) })
}

// routedTags implements tools.TagRenamer on the vault folder, when it is
// known: the app's edits of notes go through the folder too.
type routedTags struct{ r *Router }

func (t routedTags) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	if v := t.r.native(); v != nil {
		return v.RenameTag(ctx, from, to, paths)
	}
	return note.TagRename{}, tools.ErrNoBulk
}

// needsApp is what the folder says of what only the app can do.
func needsApp(what string) *errors.Error {
	return errors.E(errors.Unsupported, "%s needs the Obsidian app, and this server is working on the vault folder without it", what).
		WithHint("Start Obsidian with its command line interface enabled, and run the server with --backend auto (the default) or --backend cli.")
}
