package obsidiancli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
	"github.com/obsidian-mcp/obsidian-mcp/vault"
)

// The CLI backend and the vault folder. The app knows where its vault is
// (vault info=path); when this machine can open that folder, the backend
// reads from it (the native engine's index answers with the same contract,
// faster than any CLI round trip) and writes through it what the CLI
// cannot carry (a backslash, a NUL byte, more than 4 KB), and the router
// (internal/backend) carries on with it when the app stops answering.

// Policy is the policy in force: the vault folder's when this machine can
// open it (the configured one with the vault's ignore file), else the
// configured one.
func (b *Backend) Policy(ctx context.Context) *policy.Policy {
	if root, err := b.vaultRoot(ctx); err == nil {
		return root.Policy()
	}
	return b.Rules
}

// KnownFolder is the vault folder when known without asking the app:
// given in Folder, or learned earlier from the CLI and reachable from this
// machine; nil otherwise. The router carries on with it when the app stops
// answering.
func (b *Backend) KnownFolder() *vault.Vault {
	if b.Folder != nil {
		return b.Folder
	}
	b.rootMu.Lock()
	defer b.rootMu.Unlock()
	return b.root
}

// LearnFolder asks the app where the vault folder is (once; see vaultRoot)
// and returns it when this machine can open it, else nil.
func (b *Backend) LearnFolder(ctx context.Context) *vault.Vault {
	root, err := b.vaultRoot(ctx)
	if err != nil {
		return nil
	}
	return root
}

// vaultRoot opens the vault folder, asking the CLI where it is the first
// time. A folder this machine cannot open (the CLI may talk to an app on
// another file system, as from WSL) is remembered as errNoLocalVault; CLI
// failures are not remembered, so a later call can succeed. The lock is
// not held while the CLI answers, so that KnownFolder never waits on an
// app that hangs; calls that ask at once keep the first answer.
func (b *Backend) vaultRoot(ctx context.Context) (*vault.Vault, error) {
	if b.Folder != nil {
		return b.Folder, nil
	}
	b.rootMu.Lock()
	root, rootErr := b.root, b.rootErr
	b.rootMu.Unlock()
	if root != nil || rootErr != nil {
		return root, rootErr
	}
	out, err := b.CLI.Run(ctx, "vault", "info=path")
	if err != nil {
		return nil, err
	}
	dir := strings.TrimSpace(out)
	root, err = vault.Open(dir, append([]vault.Option{vault.WithPolicy(b.Rules), vault.WithLogger(b.Logger)}, b.VaultOptions...)...)
	b.rootMu.Lock()
	defer b.rootMu.Unlock()
	if b.root != nil || b.rootErr != nil {
		if root != nil {
			_ = root.Close()
		}
		return b.root, b.rootErr
	}
	if err != nil {
		b.rootErr = fmt.Errorf("%w (%q: %v)", errNoLocalVault, dir, err)
		b.Logger.Info("vault folder not reachable; reads go through the CLI", "dir", dir, "err", err)
		return nil, b.rootErr
	}
	b.root = root
	return root, nil
}

// directRoot is vaultRoot for writes that cannot go through the CLI.
func (b *Backend) directRoot(ctx context.Context) (*vault.Vault, error) {
	root, err := b.vaultRoot(ctx)
	if errors.Is(err, errNoLocalVault) {
		return nil, errors.E(errors.Unsupported, "this content cannot be sent through the Obsidian CLI, and %v", err).
			WithHint("Content with a backslash, a NUL byte, or over 4 KB is written to the vault folder directly. Run the server on the machine that holds the vault folder, or send the content in smaller pieces without backslashes.")
	}
	return root, err
}

// readSide runs a read-side call on the vault folder when this machine can
// open it (the native engine's index answers with the same contract,
// faster than any CLI round trip), and through the app's own commands
// otherwise (read.go).
func readSide[R any](ctx context.Context, b *Backend, local func(*vault.Vault) (R, error), app func() (R, error)) (R, error) {
	root, err := b.vaultRoot(ctx)
	switch {
	case err == nil:
		return local(root)
	case errors.Is(err, errNoLocalVault):
		return app()
	}
	var zero R
	return zero, err
}

// Search implements tools.Searcher.
func (b *Backend) Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error) {
	return readSide(ctx, b, func(v *vault.Vault) (note.SearchResult, error) { return v.Search(ctx, req) },
		func() (note.SearchResult, error) { return b.cliSearch(ctx, req) })
}

// List implements tools.Lister.
func (b *Backend) List(ctx context.Context, req note.ListRequest) (note.Listing, error) {
	return readSide(ctx, b, func(v *vault.Vault) (note.Listing, error) { return v.List(ctx, req) },
		func() (note.Listing, error) { return b.cliList(ctx, req) })
}

// Links implements tools.LinkGraph.
func (b *Backend) Links(ctx context.Context, loc note.Locator) (note.Links, error) {
	return readSide(ctx, b, func(v *vault.Vault) (note.Links, error) { return v.Links(ctx, loc) },
		func() (note.Links, error) { return b.cliLinks(ctx, loc) })
}

// Backlinks implements tools.LinkGraph.
func (b *Backend) Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error) {
	return readSide(ctx, b, func(v *vault.Vault) (note.Backlinks, error) { return v.Backlinks(ctx, loc) },
		func() (note.Backlinks, error) { return b.cliBacklinks(ctx, loc) })
}

// Unresolved implements tools.LinkGraph.
func (b *Backend) Unresolved(ctx context.Context) ([]note.Unresolved, error) {
	return readSide(ctx, b, func(v *vault.Vault) ([]note.Unresolved, error) { return v.Unresolved(ctx) },
		func() ([]note.Unresolved, error) { return b.cliUnresolved(ctx) })
}

// Orphans implements tools.LinkGraph.
func (b *Backend) Orphans(ctx context.Context) ([]string, error) {
	return readSide(ctx, b, func(v *vault.Vault) ([]string, error) { return v.Orphans(ctx) },
		func() ([]string, error) { return b.cliOrphans(ctx) })
}

// Tags implements tools.Metadata.
func (b *Backend) Tags(ctx context.Context) ([]note.TagCount, error) {
	return readSide(ctx, b, func(v *vault.Vault) ([]note.TagCount, error) { return v.Tags(ctx) },
		func() ([]note.TagCount, error) { return b.cliTags(ctx) })
}

// Tagged implements tools.Metadata.
func (b *Backend) Tagged(ctx context.Context, tag string) ([]string, error) {
	return readSide(ctx, b, func(v *vault.Vault) ([]string, error) { return v.Tagged(ctx, tag) },
		func() ([]string, error) { return b.cliTagged(ctx, tag) })
}

// Properties implements tools.Metadata.
func (b *Backend) Properties(ctx context.Context) ([]note.PropertyStat, error) {
	return readSide(ctx, b, func(v *vault.Vault) ([]note.PropertyStat, error) { return v.Properties(ctx) },
		func() ([]note.PropertyStat, error) { return b.cliProperties(ctx) })
}

// DailyPath is where the daily note of date is, or would be created:
// today's as the app says (daily:path), other dates from the Daily notes
// settings in the vault folder, as Daily finds them.
func (b *Backend) DailyPath(ctx context.Context, date time.Time) (string, error) {
	if isToday(date) {
		out, err := b.CLI.Run(ctx, "daily:path")
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(firstLine(out)), nil
	}
	root, err := b.directRoot(ctx)
	if err != nil {
		return "", err
	}
	return root.DailyPath(ctx, date)
}

func isToday(date time.Time) bool {
	y, m, d := date.Date()
	ty, tm, td := time.Now().Date()
	return y == ty && m == tm && d == td
}

// Daily implements tools.DailyNotes. Today's note is the app's: its path
// comes from daily:path, and text is added with daily:append or
// daily:prepend, so that the app creates the note with its own settings
// and template. Other dates, and text the CLI cannot carry, go through the
// engine on the vault folder, which reads the same settings.
func (b *Backend) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	today := isToday(req.Date)
	date := req.Date.Format(time.DateOnly)
	switch {
	case today && req.Op != note.DailyRead && argSafe(req.Content):
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
	case today && req.Op == note.DailyRead:
		p, err := b.DailyPath(ctx, req.Date)
		if err != nil {
			return note.Daily{}, err
		}
		c, err := b.Read(ctx, note.ByPath(p))
		return note.DailyOf(date, p, c, err)
	}
	root, err := b.directRoot(ctx)
	if err != nil {
		return note.Daily{}, err
	}
	return root.Daily(ctx, req)
}
