package backend

import (
	"context"
	"slices"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// Gate applies the folder policy to every vault operation, whichever
// backend serves it and whichever tool or transport asks: Wrap puts a
// small guard in front of each capability of a Vault, and a tool reaches
// the vault only through them, so a tool added later is held to the
// policy without knowing of it.
//
// The backends leave hidden notes out of every answer about the vault
// (listings, search, tags, links: see native.WithPolicy); the guards
// refuse a call that names a hidden note, or would change a note the
// policy does not let the server change, before the backend is asked, and
// drop from every answer any hidden path that would still come back.
type Gate struct {
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

// Wrap is v with each capability behind its guard; paths says where a
// periodic note is, for the daily guard. Ask is kept as it is.
func (g *Gate) Wrap(v tools.Vault, paths PeriodPaths) tools.Vault {
	out := tools.Vault{
		Notes:     guardNotes{g, v.Notes},
		Search:    guardSearch{g, v.Search},
		Files:     guardFiles{g, v.Files},
		Graph:     guardGraph{g, v.Graph},
		Meta:      guardMeta{g, v.Meta},
		Edit:      guardEdit{g, v.Edit, v.Notes},
		Daily:     guardDaily{g, v.Daily, paths},
		Templates: guardTemplates{g, v.Templates},
		Tasks:     guardTasks{g, v.Tasks},
		Bases:     guardBases{g, v.Bases},
		Commands:  guardCommands{g, v.Commands},
		Ask:       v.Ask,
	}
	if v.Tags != nil {
		out.Tags = guardTags{g, v.Tags}
	}
	if v.Folders != nil {
		out.Folders = guardFolders{g, v.Folders}
	}
	return out
}

// writePolicy is the policy for a write.
func (g *Gate) writePolicy(ctx context.Context) *policy.Policy {
	if g.Prepare != nil {
		g.Prepare(ctx)
	}
	return g.Policy(ctx)
}

// read refuses a locator naming a hidden path. A name is resolved by the
// backend among visible notes only.
func (g *Gate) read(pol *policy.Policy, loc note.Locator) error {
	if loc.Path == "" {
		return nil
	}
	return pol.CheckRead(loc.Path)
}

// write resolves loc to the note's path (through notes, unguarded) and
// refuses it unless the policy lets the server change it. The call then
// goes to that exact path.
func (g *Gate) write(ctx context.Context, notes tools.Notes, loc note.Locator) (*policy.Policy, note.Locator, error) {
	pol := g.writePolicy(ctx)
	if !pol.Restricts() {
		return pol, loc, nil
	}
	p := loc.Path
	if p == "" {
		info, err := notes.FileInfo(ctx, loc)
		if err != nil {
			return pol, loc, err
		}
		p = info.Path
	}
	loc.Path, loc.Name = p, ""
	return pol, loc, pol.CheckWrite(p)
}

// guardNotes holds tools.Notes to the policy.
type guardNotes struct {
	g    *Gate
	next tools.Notes
}

func (n guardNotes) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	if err := n.g.writePolicy(ctx).CheckWrite(req.Target()); err != nil {
		return note.Created{}, err
	}
	return n.next.Create(ctx, req)
}

// Read implements tools.Notes.
func (n guardNotes) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	c, _, err := readNote(ctx, n.g, loc, n.next.Read, func(c note.Content) string { return c.Path })
	return c, err
}

// readNote holds a call on one note to the policy: loc's path before it,
// and after it the path of the note found (a name may resolve to a hidden
// note). The policy comes back for what the answer names besides.
func readNote[T any](ctx context.Context, g *Gate, loc note.Locator, call func(context.Context, note.Locator) (T, error), path func(T) string) (T, *policy.Policy, error) {
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
func (n guardNotes) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	_, loc, err := n.g.write(ctx, n.next, loc)
	if err != nil {
		return note.Written{}, err
	}
	return n.next.Append(ctx, loc, content, inline)
}

// Prepend implements tools.Notes.
func (n guardNotes) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	_, loc, err := n.g.write(ctx, n.next, loc)
	if err != nil {
		return note.Written{}, err
	}
	return n.next.Prepend(ctx, loc, content, inline)
}

// guardEdit holds tools.Editor to the policy; notes resolves a name.
type guardEdit struct {
	g     *Gate
	next  tools.Editor
	notes tools.Notes
}

func (e guardEdit) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	_, loc, err := e.g.write(ctx, e.notes, loc)
	if err != nil {
		return note.Edited{}, err
	}
	return e.next.Edit(ctx, loc, ifMatch, change)
}

// Delete implements tools.Notes.
func (n guardNotes) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	_, loc, err := n.g.write(ctx, n.next, loc)
	if err != nil {
		return note.Deleted{}, err
	}
	return n.next.Delete(ctx, loc, permanent)
}

// Move implements tools.Notes: the note must be one the server may
// change, and so must the place it goes to.
func (n guardNotes) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	return n.relocate(ctx, loc, func(from string) string { return note.MoveTarget(from, to) },
		func(loc note.Locator) (note.Moved, error) { return n.next.Move(ctx, loc, to) })
}

// Rename implements tools.Notes, as Move.
func (n guardNotes) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	return n.relocate(ctx, loc, func(from string) string { return note.RenameTarget(from, newName) },
		func(loc note.Locator) (note.Moved, error) { return n.next.Rename(ctx, loc, newName) })
}

// relocate checks a move of the note at loc to target(its path), then
// runs it on the exact path.
func (n guardNotes) relocate(ctx context.Context, loc note.Locator, target func(string) string, run func(note.Locator) (note.Moved, error)) (note.Moved, error) {
	pol, loc, err := n.g.write(ctx, n.next, loc)
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
func (n guardNotes) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	pol := n.g.Policy(ctx)
	if err := n.g.read(pol, loc); err != nil {
		return note.Opened{}, err
	}
	if loc.Path == "" && pol.Hides() {
		// Resolve first: the app would show a hidden note to the user
		// before its path could be checked.
		info, err := n.FileInfo(ctx, loc)
		if err != nil {
			return note.Opened{}, err
		}
		loc = note.ByPath(info.Path)
	}
	return n.next.Open(ctx, loc, newTab)
}

// FileInfo implements tools.Notes.
func (n guardNotes) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	info, _, err := readNote(ctx, n.g, loc, n.next.FileInfo, func(i note.Info) string { return i.Path })
	return info, err
}

// visible is items less those of the notes the policy hides; path names
// an item's note.
func visible[T any](ctx context.Context, g *Gate, items []T, path func(T) string) []T {
	if pol := g.Policy(ctx); pol.Hides() {
		return slices.DeleteFunc(items, func(it T) bool { return pol.Hidden(path(it)) })
	}
	return items
}

// guardSearch holds tools.Searcher to the policy.
type guardSearch struct {
	g    *Gate
	next tools.Searcher
}

func (q guardSearch) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	res, err := q.next.Search(ctx, req)
	if err == nil {
		res.Hits = visible(ctx, q.g, res.Hits, func(h note.Hit) string { return h.Path })
	}
	return res, err
}

// guardFiles holds tools.Lister to the policy.
type guardFiles struct {
	g    *Gate
	next tools.Lister
}

func (f guardFiles) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	res, err := f.next.List(ctx, req)
	if pol := f.g.Policy(ctx); err == nil && pol.Hides() {
		// Folders are the backend's to judge: a hidden folder may lead
		// to visible notes (policy.Folders).
		res.Entries = slices.DeleteFunc(res.Entries, func(e note.Entry) bool { return e.Type == "file" && pol.Hidden(e.Path) })
	}
	return res, err
}

// guardGraph holds tools.LinkGraph to the policy: a link to a hidden
// note is shown as it is written, leading nowhere.
type guardGraph struct {
	g    *Gate
	next tools.LinkGraph
}

func (l guardGraph) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	res, pol, err := readNote(ctx, l.g, loc, l.next.Links, func(l note.Links) string { return l.Path })
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
func (l guardGraph) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	res, pol, err := readNote(ctx, l.g, loc, l.next.Backlinks, func(b note.Backlinks) string { return b.Path })
	if err != nil {
		return note.Backlinks{}, err
	}
	n := len(res.Backlinks)
	res.Backlinks = slices.DeleteFunc(res.Backlinks, func(r note.LinkRef) bool { return pol.Hidden(r.Path) })
	res.Total -= n - len(res.Backlinks)
	return res, nil
}

// Unresolved implements tools.LinkGraph.
func (l guardGraph) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	res, err := l.next.Unresolved(ctx)
	if pol := l.g.Policy(ctx); err == nil && pol.Hides() {
		for i := range res {
			res[i].Sources = slices.DeleteFunc(res[i].Sources, func(r note.LinkRef) bool { return pol.Hidden(r.Path) })
		}
	}
	return res, err
}

// Orphans implements tools.LinkGraph.
func (l guardGraph) Orphans(ctx context.Context) ([]string, error) {
	res, err := l.next.Orphans(ctx)
	if err == nil {
		res = l.g.Policy(ctx).Files(res)
	}
	return res, err
}

// guardMeta holds tools.Metadata to the policy. Counts are the
// backend's, made over the visible notes only.
type guardMeta struct {
	g    *Gate
	next tools.Metadata
}

func (m guardMeta) Tags(ctx context.Context) ([]note.TagCount, error) { return m.next.Tags(ctx) }

// Tagged implements tools.Metadata.
func (m guardMeta) Tagged(ctx context.Context, tag string) ([]string, error) {
	res, err := m.next.Tagged(ctx, tag)
	if err == nil {
		res = m.g.Policy(ctx).Files(res)
	}
	return res, err
}

// Properties implements tools.Metadata.
func (m guardMeta) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return m.next.Properties(ctx)
}

// guardDaily holds tools.DailyNotes to the policy: the daily note's path
// is found first, and checked as a read or a write.
type guardDaily struct {
	g     *Gate
	next  tools.DailyNotes
	paths PeriodPaths
}

func (d guardDaily) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	pol := d.g.Policy(ctx)
	if req.Op != note.DailyRead {
		pol = d.g.writePolicy(ctx)
	}
	if pol.Restricts() {
		p, err := d.paths.PeriodPath(ctx, req.Date, req.Period)
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
	return d.next.Daily(ctx, req)
}

// guardTasks holds tools.TaskLister to the policy: the tasks of hidden
// notes are left out.
type guardTasks struct {
	g    *Gate
	next tools.TaskLister
}

func (t guardTasks) Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error) {
	res, err := t.next.Tasks(ctx, q)
	if err == nil {
		res = visible(ctx, t.g, res, func(t tasks.Task) string { return t.Path })
	}
	return res, err
}

// TaskSettings passes through: the plugin's settings are no note.
func (t guardTasks) TaskSettings(ctx context.Context) (tasks.Settings, error) {
	return t.next.TaskSettings(ctx)
}

// guardCommands holds tools.Commander to the policy: listing the
// commands reads no note; running one is refused while a policy is set.
type guardCommands struct {
	g    *Gate
	next tools.Commander
}

func (c guardCommands) Commands(ctx context.Context, filter string) ([]note.Command, error) {
	return c.next.Commands(ctx, filter)
}

// RunCommand is refused while a folder policy restricts what the server
// may see or change: a command acts on the whole vault, outside it.
func (c guardCommands) RunCommand(ctx context.Context, id string) (note.CommandRun, error) {
	if c.g.Policy(ctx).Restricts() {
		return note.CommandRun{}, errors.E(errors.PermissionDenied, "Obsidian commands act on the whole vault, outside the folder policy this server keeps (--read-paths, --write-paths, --deny-paths, .mcpignore); none is run while one is set").
			WithHint("Run the command in Obsidian yourself, or serve without a folder policy.")
	}
	return c.next.RunCommand(ctx, id)
}

// guardBases holds tools.BaseQuerier to the policy: a hidden base is
// refused like a hidden note, and hidden files are left out of its rows.
type guardBases struct {
	g    *Gate
	next tools.BaseQuerier
}

func (q guardBases) QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error) {
	res, _, err := readNote(ctx, q.g, loc, func(ctx context.Context, loc note.Locator) (bases.Result, error) {
		return q.next.QueryBase(ctx, loc, view)
	}, func(r bases.Result) string { return r.Path })
	if err == nil {
		if q.g.Policy(ctx).Restricts() && slices.ContainsFunc(res.Rows, func(r bases.Row) bool { return r.Path == "" }) {
			return bases.Result{}, errors.E(errors.PermissionDenied, "the app's answer does not say which file each row is, so the folder policy cannot be kept; nothing is shown").
				WithHint("Give the server the vault folder (--vault-path), where bases are evaluated natively.")
		}
		res.Rows = visible(ctx, q.g, res.Rows, func(r bases.Row) string { return r.Path })
		res.Total = len(res.Rows)
	}
	return res, err
}

// guardTemplates holds tools.TemplateLister to the policy: hidden
// templates are left out.
type guardTemplates struct {
	g    *Gate
	next tools.TemplateLister
}

func (t guardTemplates) Templates(ctx context.Context) (note.Templates, error) {
	res, err := t.next.Templates(ctx)
	if err == nil {
		res.Templates = visible(ctx, t.g, res.Templates, func(t note.Template) string { return t.Path })
	}
	return res, err
}

// guardTags holds tools.TagRenamer to the policy: the notes the policy
// does not let the server change are listed as failed, and the rest
// renamed as one edit by the backend.
type guardTags struct {
	g    *Gate
	next tools.TagRenamer
}

func (t guardTags) RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error) {
	pol := t.g.writePolicy(ctx)
	var allowed []string
	var refused []note.FailedNote
	for _, p := range paths {
		if err := pol.CheckWrite(p); err != nil {
			refused = append(refused, note.FailedNote{Path: p, Message: errors.From(err).Message})
			continue
		}
		allowed = append(allowed, p)
	}
	res, err := t.next.RenameTag(ctx, from, to, allowed)
	res.Failed = append(refused, res.Failed...)
	return res, err
}
