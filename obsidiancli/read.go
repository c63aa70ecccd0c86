package obsidiancli

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The read side through the app's own commands, for a vault whose folder
// this machine cannot open. Each maps the CLI's answer to the shapes the
// native engine gives; where the app does not say something (a score,
// sizes and times in a listing, the line of a backlink) the field is left
// at zero, as the tool descriptions say.

// lines splits a listing's output into its non-empty lines.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// cliQuery checks that a query can travel through argv: the CLI turns
// every \n, \t and \r into a control character and has no escape for a
// backslash (docs/cli.md §1).
func cliQuery(q string) error {
	if strings.Contains(q, `\n`) || strings.Contains(q, `\t`) || strings.Contains(q, `\r`) {
		return errors.E(errors.Unsupported, `this query cannot be sent through the Obsidian CLI: it turns \n, \t and \r into control characters`).
			WithHint("Rewrite the pattern without those escapes (e.g. [\\s] for white space), or run the server where it can open the vault folder.")
	}
	return nil
}

// Search implements tools.Searcher with `search` (the order and the
// total) and `search:context` (the matching lines of the page).
func (b *Backend) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	q := req.Query
	if req.Mode == note.SearchRegex {
		q = "/" + q + "/"
	}
	if err := cliQuery(q); err != nil {
		return note.SearchResult{}, err
	}
	args := []string{"query=" + escaper.Replace(q), "format=json"}
	if req.Folder != "" {
		args = append(args, "path="+strings.Trim(req.Folder, "/"))
	}
	out, err := b.CLI.Run(ctx, "search", args...)
	if err != nil {
		return note.SearchResult{}, queryError(err)
	}
	var all []string
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		return note.SearchResult{}, unexpected("search", out)
	}
	all = b.policy(ctx).Files(all)
	res := note.SearchResult{Total: len(all), Hits: []note.Hit{}}
	page := all[min(req.Offset, len(all)):min(len(all), req.Offset+req.Limit)]
	if len(page) == 0 {
		return res, nil
	}
	out, err = b.CLI.Run(ctx, "search:context", append(args, "limit="+strconv.Itoa(req.Offset+len(page)))...)
	if err != nil {
		return note.SearchResult{}, queryError(err)
	}
	var ctxs []struct {
		File    string `json:"file"`
		Matches []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"matches"`
	}
	if err := json.Unmarshal([]byte(out), &ctxs); err != nil {
		return note.SearchResult{}, unexpected("search:context", out)
	}
	byFile := map[string][]note.Snippet{}
	for _, c := range ctxs {
		for _, m := range c.Matches {
			if len(byFile[c.File]) == 3 {
				break
			}
			// Unmarked: the router marks the query's words
			// (backend.routedSearch).
			byFile[c.File] = append(byFile[c.File], note.Snippet{Line: m.Line, Text: m.Text})
		}
	}
	for i, p := range page {
		// The app ranks but does not score: the score falls with the rank.
		score := math.Round(1000*float64(len(all)-req.Offset-i)/float64(len(all))) / 1000
		snips := byFile[p]
		if snips == nil {
			snips = []note.Snippet{}
		}
		res.Hits = append(res.Hits, note.Hit{Path: p, Score: score, Snippets: snips})
	}
	return res, nil
}

// queryError turns the app's complaint about a query into a field error.
func queryError(err error) error {
	if e := errors.From(err); e.Kind == errors.CLIError {
		return errors.InvalidFields(errors.Field{Field: "query", Message: "was refused by Obsidian: " + e.Message})
	}
	return err
}

// List implements tools.Lister with `files` and `folders`; the app gives
// no sizes or times, so sorting by time is refused rather than faked.
func (b *Backend) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	if req.Unused {
		return note.Listing{}, needsFolder("the list of unused attachments").
			WithHint("The app's commands do not say what links to a file; the links are read from the notes in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
	}
	if req.Sort == "modified" {
		return note.Listing{}, errors.E(errors.Unsupported, "sorting by modification time needs the vault folder; the Obsidian CLI lists no times").
			WithHint("Sort by name, or run the server where it can open the vault folder (--vault-path).")
	}
	out, err := b.CLI.Run(ctx, "files")
	if err != nil {
		return note.Listing{}, err
	}
	pol := b.policy(ctx)
	files := pol.Files(lines(out))
	out, err = b.CLI.Run(ctx, "folders")
	if err != nil {
		return note.Listing{}, err
	}
	var folders []string
	for _, f := range lines(out) {
		if f != "/" {
			folders = append(folders, strings.Trim(f, "/"))
		}
	}
	folders = pol.Folders(folders, files)
	isFolder := map[string]bool{}
	for _, f := range folders {
		isFolder[f] = true
	}
	return note.ListEntries(req, files, folders, func(p string) (note.Entry, bool) {
		if isFolder[p] {
			return note.Entry{Path: p, Type: "folder"}, true
		}
		return note.Entry{Path: p, Type: "file"}, true
	})
}

// Links implements tools.LinkGraph: it reads the note and resolves its
// links against the app's file list, as Obsidian resolves them: the same
// answer as the engine's, lines included.
func (b *Backend) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	c, err := b.Read(ctx, loc)
	if err != nil {
		return note.Links{}, err
	}
	out, err := b.CLI.Run(ctx, "files")
	if err != nil {
		return note.Links{}, err
	}
	ix := links.NewIndex(b.policy(ctx).Files(lines(out)))
	res := note.Links{Path: c.Path, Links: []note.OutLink{}}
	for _, l := range metadata.Parse([]byte(c.Content)).Links {
		target := ix.Resolve(l.Target, c.Path)
		res.Links = append(res.Links, note.OutLink{Target: l.Target, Subpath: l.Subpath, Path: target, Resolved: target != "", Line: l.Line, Embed: l.Embed})
	}
	return res, nil
}

// Backlinks implements tools.LinkGraph with `backlinks`, which names each
// linking note once, without lines.
func (b *Backend) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Backlinks{}, err
	}
	out, err := b.CLI.Run(ctx, "backlinks", "path="+p, "format=json")
	if err != nil {
		return note.Backlinks{}, err
	}
	var files []struct {
		File string `json:"file"`
	}
	if err := json.Unmarshal([]byte(out), &files); err != nil {
		return note.Backlinks{}, unexpected("backlinks", out)
	}
	res := note.Backlinks{Path: p, Backlinks: []note.LinkRef{}}
	pol := b.policy(ctx)
	for _, f := range files {
		if pol.Hidden(f.File) {
			continue
		}
		res.Backlinks = append(res.Backlinks, note.LinkRef{Path: f.File})
	}
	res.Total = len(res.Backlinks)
	return res, nil
}

// entries reads a JSON array of objects leniently: the shapes of
// unresolved, tags and properties are not documented (docs/cli.md), so
// a name is taken from the first of several likely keys, and a count from
// "count" when present.
func entries(command, out string, nameKeys ...string) ([]entry, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		return nil, unexpected(command, out)
	}
	es := make([]entry, 0, len(raw))
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			es = append(es, entry{name: s, count: 1})
			continue
		}
		var m map[string]any
		if json.Unmarshal(r, &m) != nil {
			return nil, unexpected(command, out)
		}
		e := entry{count: 1, fields: m}
		for _, k := range nameKeys {
			if v, ok := m[k].(string); ok {
				e.name = v
				break
			}
		}
		if c, ok := m["count"].(float64); ok {
			e.count = int(c)
		}
		if e.name == "" {
			return nil, unexpected(command, out)
		}
		es = append(es, e)
	}
	return es, nil
}

type entry struct {
	name   string
	count  int
	fields map[string]any
}

// vaultWide refuses an answer about the whole vault that the app computes
// over every note, hidden ones included, when the policy hides some: the
// app's counts cannot be taken apart, and would tell of hidden notes.
func (b *Backend) vaultWide(ctx context.Context, what string) error {
	if !b.policy(ctx).Hides() {
		return nil
	}
	return errors.E(errors.Unsupported, "%s cannot be answered through the app while some notes are hidden from this server: the app counts every note", what).
		WithHint("Run the server on the machine that holds the vault folder (--vault-path), where hidden notes are left out of the answer.")
}

// Unresolved implements tools.LinkGraph.
func (b *Backend) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	if err := b.vaultWide(ctx, "unresolved links"); err != nil {
		return nil, err
	}
	out, err := b.CLI.Run(ctx, "unresolved", "format=json")
	if err != nil {
		return nil, err
	}
	es, err := entries("unresolved", out, "link", "target", "name")
	if err != nil {
		return nil, err
	}
	res := make([]note.Unresolved, 0, len(es))
	for _, e := range es {
		res = append(res, note.Unresolved{Target: e.name, Count: e.count, Sources: []note.LinkRef{}})
	}
	return res, nil
}

// Orphans implements tools.LinkGraph.
func (b *Backend) Orphans(ctx context.Context) ([]string, error) {
	if err := b.vaultWide(ctx, "orphans"); err != nil {
		return nil, err
	}
	out, err := b.CLI.Run(ctx, "orphans")
	if err != nil {
		return nil, err
	}
	res := []string{}
	for _, l := range lines(out) {
		if note.IsMarkdown(l) {
			res = append(res, l)
		}
	}
	return res, nil
}

// Tags implements tools.Metadata.
func (b *Backend) Tags(ctx context.Context) ([]note.TagCount, error) {
	if err := b.vaultWide(ctx, "tag counts"); err != nil {
		return nil, err
	}
	out, err := b.CLI.Run(ctx, "tags", "counts", "format=json")
	if err != nil {
		return nil, err
	}
	es, err := entries("tags", out, "tag", "name")
	if err != nil {
		return nil, err
	}
	res := make([]note.TagCount, 0, len(es))
	for _, e := range es {
		res = append(res, note.TagCount{Tag: strings.TrimPrefix(e.name, "#"), Count: e.count})
	}
	return res, nil
}

// Tagged implements tools.Metadata with the app's own tag: search, which
// includes nested tags as ours does.
func (b *Backend) Tagged(ctx context.Context, tag string) ([]string, error) {
	if strings.ContainsAny(tag, " \"") {
		return []string{}, nil // no tag has those
	}
	out, err := b.CLI.Run(ctx, "search", "query=tag:#"+escaper.Replace(tag), "format=json")
	if err != nil {
		return nil, err
	}
	var paths []string
	if err := json.Unmarshal([]byte(out), &paths); err != nil {
		return nil, unexpected("search", out)
	}
	if paths == nil {
		paths = []string{}
	}
	return b.policy(ctx).Files(paths), nil
}

// Properties implements tools.Metadata.
func (b *Backend) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	if err := b.vaultWide(ctx, "property counts"); err != nil {
		return nil, err
	}
	out, err := b.CLI.Run(ctx, "properties", "format=json")
	if err != nil {
		return nil, err
	}
	es, err := entries("properties", out, "name", "key", "property")
	if err != nil {
		return nil, err
	}
	res := make([]note.PropertyStat, 0, len(es))
	for _, e := range es {
		types := []string{}
		if t, ok := e.fields["type"].(string); ok {
			types = append(types, t)
		}
		res = append(res, note.PropertyStat{Name: e.name, Count: e.count, Types: types})
	}
	return res, nil
}
