package backend

import (
	"context"
	"slices"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// dailyPather says where the daily note of a date is, before it is read
// or written.
type dailyPather interface {
	DailyPath(ctx context.Context, date time.Time) (string, error)
	// PeriodPath is where the note of the period (note.Day, note.Week…)
	// that holds date is.
	PeriodPath(ctx context.Context, date time.Time, period string) (string, error)
}

// Guarded is what a Guard stands in front of.
type Guarded interface {
	tools.Everything
	dailyPather
}

// Guard applies the folder policy to every vault operation, whichever
// backend serves it and whichever tool or transport asks: a tool reaches
// the vault only through these methods, so a tool added later is held to
// the policy without knowing of it.
//
// The backends leave hidden notes out of every answer about the vault
// (listings, search, tags, links: see native.WithPolicy); the guard refuses
// a call that names a hidden note, or would change a note the policy does
// not let the server change, before the backend is asked, and drops from
// every answer any hidden path that would still come back.
type Guard struct {
	Next Guarded
	// Policy is the policy in force for a call (the vault's ignore file
	// may change between calls).
	Policy func(ctx context.Context) *policy.Policy
	// Prepare, when set, runs before a write is checked. The router
	// learns the vault folder from the app there, so that the folder's
	// ignore file holds for a write that goes through the app before
	// anything else has needed the folder; one-note reads do too when
	// rules are set, so that a path is judged by the file it reaches.
	Prepare func(ctx context.Context)
}

// writePolicy is the policy for a write.
func (g *Guard) writePolicy(ctx context.Context) *policy.Policy {
	if g.Prepare != nil {
		g.Prepare(ctx)
	}
	return g.Policy(ctx)
}

// read refuses a locator naming a hidden path. A name is resolved by the
// backend among visible notes only.
func (g *Guard) read(pol *policy.Policy, loc note.Locator) error {
	if loc.Path == "" {
		return nil
	}
	return pol.CheckRead(loc.Path)
}

// write resolves loc to the note's path and refuses it unless the policy
// lets the server change it. The call then goes to that exact path.
func (g *Guard) write(ctx context.Context, loc note.Locator) (*policy.Policy, note.Locator, error) {
	pol := g.writePolicy(ctx)
	if !pol.Restricts() {
		return pol, loc, nil
	}
	p := loc.Path
	if p == "" {
		info, err := g.Next.FileInfo(ctx, loc)
		if err != nil {
			return pol, loc, err
		}
		p = info.Path
	}
	loc.Path, loc.Name = p, ""
	return pol, loc, pol.CheckWrite(p)
}

// Create implements tools.Notes.
func (g *Guard) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	if err := g.writePolicy(ctx).CheckWrite(req.Target()); err != nil {
		return note.Created{}, err
	}
	return g.Next.Create(ctx, req)
}

// Read implements tools.Notes.
func (g *Guard) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	c, _, err := readNote(ctx, g, loc, g.Next.Read, func(c note.Content) string { return c.Path })
	return c, err
}

// readNote holds a call on one note to the policy: loc's path before it,
// and after it the path of the note found (a name may resolve to a hidden
// note). The policy comes back for what the answer names besides.
func readNote[T any](ctx context.Context, g *Guard, loc note.Locator, call func(context.Context, note.Locator) (T, error), path func(T) string) (T, *policy.Policy, error) {
	var none T
	// With rules set, the folder is learned first here too: the policy
	// judges a path by the file it reaches through symlinks, which only
	// the folder tells.
	pol := g.Policy(ctx)
	if pol.Restricts() {
		pol = g.writePolicy(ctx)
	}
	if err := g.read(pol, loc); err != nil {
		return none, pol, err
	}
	res, err := call(ctx, loc)
	if err == nil {
		err = pol.CheckRead(path(res))
	}
	if err != nil {
		return none, pol, err
	}
	return res, pol, nil
}

// Append implements tools.Notes.
func (g *Guard) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	_, loc, err := g.write(ctx, loc)
	if err != nil {
		return note.Written{}, err
	}
	return g.Next.Append(ctx, loc, content, inline)
}

// Prepend implements tools.Notes.
func (g *Guard) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	_, loc, err := g.write(ctx, loc)
	if err != nil {
		return note.Written{}, err
	}
	return g.Next.Prepend(ctx, loc, content, inline)
}

// Edit implements tools.Editor.
func (g *Guard) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	_, loc, err := g.write(ctx, loc)
	if err != nil {
		return note.Edited{}, err
	}
	return g.Next.Edit(ctx, loc, ifMatch, change)
}

// Delete implements tools.Notes.
func (g *Guard) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	_, loc, err := g.write(ctx, loc)
	if err != nil {
		return note.Deleted{}, err
	}
	return g.Next.Delete(ctx, loc, permanent)
}

// Move implements tools.Notes: the note must be one the server may
// change, and so must the place it goes to.
func (g *Guard) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	return g.relocate(ctx, loc, func(from string) string { return note.MoveTarget(from, to) },
		func(loc note.Locator) (note.Moved, error) { return g.Next.Move(ctx, loc, to) })
}

// Rename implements tools.Notes, as Move.
func (g *Guard) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	return g.relocate(ctx, loc, func(from string) string { return note.RenameTarget(from, newName) },
		func(loc note.Locator) (note.Moved, error) { return g.Next.Rename(ctx, loc, newName) })
}

// relocate checks a move of the note at loc to target(its path), then
// runs it on the exact path.
func (g *Guard) relocate(ctx context.Context, loc note.Locator, target func(string) string, run func(note.Locator) (note.Moved, error)) (note.Moved, error) {
	pol, loc, err := g.write(ctx, loc)
	if err != nil {
		return note.Moved{}, err
	}
	if loc.Path != "" {
		if err := pol.CheckWrite(target(loc.Path)); err != nil {
			return note.Moved{}, err
		}
	}
	return run(loc)
}

// Open implements tools.Notes.
func (g *Guard) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	pol := g.Policy(ctx)
	if err := g.read(pol, loc); err != nil {
		return note.Opened{}, err
	}
	if loc.Path == "" && pol.Hides() {
		// Resolve first: the app would show a hidden note to the user
		// before its path could be checked.
		info, err := g.FileInfo(ctx, loc)
		if err != nil {
			return note.Opened{}, err
		}
		loc = note.ByPath(info.Path)
	}
	return g.Next.Open(ctx, loc, newTab)
}

// FileInfo implements tools.Notes.
func (g *Guard) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	info, _, err := readNote(ctx, g, loc, g.Next.FileInfo, func(i note.Info) string { return i.Path })
	return info, err
}

// visible is items less those of the notes the policy hides; path names
// an item's note.
func visible[T any](ctx context.Context, g *Guard, items []T, path func(T) string) []T {
	if pol := g.Policy(ctx); pol.Hides() {
		return slices.DeleteFunc(items, func(it T) bool { return pol.Hidden(path(it)) })
	}
	return items
}

// Search implements tools.Searcher.
func (g *Guard) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	res, err := g.Next.Search(ctx, req)
	if err == nil {
		res.Hits = visible(ctx, g, res.Hits, func(h note.Hit) string { return h.Path })
	}
	return res, err
}

// List implements tools.Lister.
func (g *Guard) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	res, err := g.Next.List(ctx, req)
	if pol := g.Policy(ctx); err == nil && pol.Hides() {
		// Folders are the backend's to judge: a hidden folder may lead
		// to visible notes (policy.Folders).
		res.Entries = slices.DeleteFunc(res.Entries, func(e note.Entry) bool { return e.Type == "file" && pol.Hidden(e.Path) })
	}
	return res, err
}

// Links implements tools.LinkGraph: a link to a hidden note is shown as
// it is written, leading nowhere.
func (g *Guard) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	res, pol, err := readNote(ctx, g, loc, g.Next.Links, func(l note.Links) string { return l.Path })
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

// Backlinks implements tools.LinkGraph.
func (g *Guard) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	res, pol, err := readNote(ctx, g, loc, g.Next.Backlinks, func(b note.Backlinks) string { return b.Path })
	if err != nil {
		return note.Backlinks{}, err
	}
	n := len(res.Backlinks)
	res.Backlinks = slices.DeleteFunc(res.Backlinks, func(r note.LinkRef) bool { return pol.Hidden(r.Path) })
	res.Total -= n - len(res.Backlinks)
	return res, nil
}

// Unresolved implements tools.LinkGraph.
func (g *Guard) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	res, err := g.Next.Unresolved(ctx)
	if pol := g.Policy(ctx); err == nil && pol.Hides() {
		for i := range res {
			res[i].Sources = slices.DeleteFunc(res[i].Sources, func(r note.LinkRef) bool { return pol.Hidden(r.Path) })
		}
	}
	return res, err
}

// Orphans implements tools.LinkGraph.
func (g *Guard) Orphans(ctx context.Context) ([]string, error) {
	res, err := g.Next.Orphans(ctx)
	if err == nil {
		res = g.Policy(ctx).Files(res)
	}
	return res, err
}

// Tags implements tools.Metadata. Counts are the backend's, made over the
// visible notes only.
func (g *Guard) Tags(ctx context.Context) ([]note.TagCount, error) { return g.Next.Tags(ctx) }

// Tagged implements tools.Metadata.
func (g *Guard) Tagged(ctx context.Context, tag string) ([]string, error) {
	res, err := g.Next.Tagged(ctx, tag)
	if err == nil {
		res = g.Policy(ctx).Files(res)
	}
	return res, err
}

// Properties implements tools.Metadata.
func (g *Guard) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return g.Next.Properties(ctx)
}

// Daily implements tools.DailyNotes: the daily note's path is found first,
// and checked as a read or a write.
func (g *Guard) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	pol := g.Policy(ctx)
	if req.Op != note.DailyRead {
		pol = g.writePolicy(ctx)
	}
	if pol.Restricts() {
		p, err := g.Next.PeriodPath(ctx, req.Date, req.Period)
		if err != nil {
			return note.Daily{}, err
		}
		check := pol.CheckWrite
		if req.Op == note.DailyRead {
			check = pol.CheckRead
		}
		if err := check(p); err != nil {
			return note.Daily{}, err
		}
	}
	return g.Next.Daily(ctx, req)
}

// DailyPath passes through: a path says nothing of a note's content.
func (g *Guard) DailyPath(ctx context.Context, date time.Time) (string, error) {
	return g.Next.DailyPath(ctx, date)
}

// Tasks implements tools.TaskLister: the tasks of hidden notes are left out.
func (g *Guard) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	res, err := g.Next.Tasks(ctx, q)
	if err == nil {
		res = visible(ctx, g, res, func(t tasks.Task) string { return t.Path })
	}
	return res, err
}

// TaskSettings passes through: the plugin's settings are no note.
func (g *Guard) TaskSettings(ctx context.Context) (tasks.Settings, error) {
	return g.Next.TaskSettings(ctx)
}

// Commands pass through: listing them reads no note.
func (g *Guard) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	return g.Next.Commands(ctx, filter)
}

// RunCommand is refused while a folder policy restricts what the server
// may see or change: a command acts on the whole vault, outside it.
func (g *Guard) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	if g.Policy(ctx).Restricts() {
		return note.CommandRun{}, errors.E(errors.PermissionDenied, "Obsidian commands act on the whole vault, outside the folder policy this server keeps (--read-paths, --write-paths, --deny-paths, .mcpignore); none is run while one is set").
			WithHint("Run the command in Obsidian yourself, or serve without a folder policy.")
	}
	return g.Next.RunCommand(ctx, id)
}

// QueryBase implements tools.BaseQuerier: a hidden base is refused like a
// hidden note, and hidden files are left out of its rows.
func (g *Guard) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	res, _, err := readNote(ctx, g, loc, func(ctx context.Context, loc note.Locator) (bases.Result, error) {
		return g.Next.QueryBase(ctx, loc, view)
	}, func(r bases.Result) string { return r.Path })
	if err == nil {
		if g.Policy(ctx).Restricts() && slices.ContainsFunc(res.Rows, func(r bases.Row) bool { return r.Path == "" }) {
			return bases.Result{}, errors.E(errors.PermissionDenied, "the app's answer does not say which file each row is, so the folder policy cannot be kept; nothing is shown").
				WithHint("Give the server the vault folder (--vault-path), where bases are evaluated natively.")
		}
		res.Rows = visible(ctx, g, res.Rows, func(r bases.Row) string { return r.Path })
		res.Total = len(res.Rows)
	}
	return res, err
}

// Templates implements tools.TemplateLister: hidden templates are left out.
func (g *Guard) Templates(ctx context.Context) (note.Templates, error) {
	res, err := g.Next.Templates(ctx)
	if err == nil {
		res.Templates = visible(ctx, g, res.Templates, func(t note.Template) string { return t.Path })
	}
	return res, err
}

// PeriodPath passes through, as DailyPath.
func (g *Guard) PeriodPath(ctx context.Context, date time.Time, period string) (string, error) {
	return g.Next.PeriodPath(ctx, date, period)
}

// RenameTag implements tools.TagRenamer: the notes the policy does not
// let the server change are listed as failed, and the rest renamed as one
// edit by the backend, when it can (tools.ErrNoBulk otherwise).
func (g *Guard) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	tr, ok := g.Next.(tools.TagRenamer)
	if !ok {
		return note.TagRename{}, tools.ErrNoBulk
	}
	pol := g.writePolicy(ctx)
	var allowed []string
	var refused []note.FailedNote
	for _, p := range paths {
		if err := pol.CheckWrite(p); err != nil {
			refused = append(refused, note.FailedNote{Path: p, Message: errors.From(err).Message})
			continue
		}
		allowed = append(allowed, p)
	}
	res, err := tr.RenameTag(ctx, from, to, allowed)
	res.Failed = append(refused, res.Failed...)
	return res, err
}
