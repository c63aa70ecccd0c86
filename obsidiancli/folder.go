package obsidiancli

import (
	"context"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// VaultPath is where the app says its vault folder is. It may be a folder
// this machine cannot open (the app may run on another file system, as
// from WSL); the router tries.
func (b *Backend) VaultPath(ctx context.Context) (string, error) {
	out, err := b.CLI.Run(ctx, "vault", "info=path")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// Search implements tools.Searcher with the app's own commands (read.go).
func (b *Backend) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	return b.cliSearch(ctx, req)
}

// List implements tools.Lister.
func (b *Backend) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	return b.cliList(ctx, req)
}

// Links implements tools.LinkGraph.
func (b *Backend) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	return b.cliLinks(ctx, loc)
}

// Backlinks implements tools.LinkGraph.
func (b *Backend) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	return b.cliBacklinks(ctx, loc)
}

// Unresolved implements tools.LinkGraph.
func (b *Backend) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return b.cliUnresolved(ctx)
}

// Orphans implements tools.LinkGraph.
func (b *Backend) Orphans(ctx context.Context) ([]string, error) { return b.cliOrphans(ctx) }

// Tags implements tools.Metadata.
func (b *Backend) Tags(ctx context.Context) ([]note.TagCount, error) { return b.cliTags(ctx) }

// Tagged implements tools.Metadata.
func (b *Backend) Tagged(ctx context.Context, tag string) ([]string, error) {
	return b.cliTagged(ctx, tag)
}

// Properties implements tools.Metadata.
func (b *Backend) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return b.cliProperties(ctx)
}

// DailyPath is where today's daily note is, or would be created, as the
// app says (daily:path). Other dates need the Daily notes settings in the
// vault folder.
func (b *Backend) DailyPath(ctx context.Context, date time.Time) (string, error) {
	if !isToday(date) {
		return "", otherDate()
	}
	out, err := b.CLI.Run(ctx, "daily:path")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(firstLine(out)), nil
}

func isToday(date time.Time) bool {
	y, m, d := date.Date()
	ty, tm, td := time.Now().Date()
	return y == ty && m == tm && d == td
}

// otherDate is a daily note the app has no command for.
func otherDate() error {
	e := needsFolder("a daily note of another date than today")
	e.Hint = "The app's commands reach only today's daily note; other dates are found from the Daily notes settings in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH."
	return e
}

// Daily implements tools.DailyNotes for today's note, the app's: its
// path comes from daily:path, and text is added with daily:append or
// daily:prepend, so that the app creates the note with its own settings
// and template.
func (b *Backend) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	if !isToday(req.Date) {
		return note.Daily{}, otherDate()
	}
	date := req.Date.Format(time.DateOnly)
	if req.Op == note.DailyRead {
		p, err := b.DailyPath(ctx, req.Date)
		if err != nil {
			return note.Daily{}, err
		}
		c, err := b.Read(ctx, note.ByPath(p))
		return note.DailyOf(date, p, c, err)
	}
	if !argSafe(req.Content) {
		return note.Daily{}, needsFolder("this content")
	}
	args := []string{"content=" + escaper.Replace(req.Content)}
	if req.Inline {
		args = append(args, "inline")
	}
	out, err := b.CLI.Run(ctx, "daily:"+req.Op, args...)
	if err != nil {
		return note.Daily{}, err
	}
	p := after(out, "Added to: ")
	if p == "" {
		p = after(out, "Prepended to: ")
	}
	if p == "" {
		return note.Daily{}, unexpected("daily:"+req.Op, out)
	}
	return note.Daily{Path: p, Date: date, Bytes: len(req.Content)}, nil
}
