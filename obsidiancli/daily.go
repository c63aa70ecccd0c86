package obsidiancli

import (
	"context"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

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

// PeriodPath is where the note of the period that holds date is: through
// the app, today's daily note alone.
func (b *Backend) PeriodPath(ctx context.Context, date time.Time, period string) (string, error) {
	if period != "" && period != note.Day {
		return "", otherPeriod(period)
	}
	return b.DailyPath(ctx, date)
}

// otherPeriod is a weekly, monthly, quarterly or yearly note, which the app
// has no command for.
func otherPeriod(period string) error {
	return needsFolder("a " + period + "ly note").
		WithHint("The app's commands reach only today's daily note; weekly, monthly, quarterly and yearly notes are found from the Periodic Notes settings in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
}

func isToday(date time.Time) bool {
	y, m, d := date.Date()
	ty, tm, td := time.Now().Date()
	return y == ty && m == tm && d == td
}

// otherDate is a daily note the app has no command for.
func otherDate() error {
	return needsFolder("a daily note of another date than today").
		WithHint("The app's commands reach only today's daily note; other dates are found from the Daily notes settings in the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
}

// Daily implements tools.DailyNotes for today's note, the app's: its
// path comes from daily:path, and text is added with daily:append or
// daily:prepend, so that the app creates the note with its own settings
// and template.
func (b *Backend) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	if req.Period != "" && req.Period != note.Day {
		return note.Daily{}, otherPeriod(req.Period)
	}
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
	send, inline := req.Content, req.Inline
	if !inline {
		if cur, ok := b.today(ctx, req.Date); ok {
			send, inline = asBlock("daily:"+req.Op, cur, req.Content), true
		}
	}
	if !argSafe(send) {
		return note.Daily{}, needsFolder("this content")
	}
	args := []string{"content=" + escaper.Replace(send)}
	if inline {
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

// today returns the content of today's daily note, so that text added to
// it can be made a block of its own; daily:read creates a missing note
// from the template first. ok is false when it cannot be read: then the
// app adds the text its own way.
func (b *Backend) today(ctx context.Context, date time.Time) (content string, ok bool) {
	p, err := b.DailyPath(ctx, date)
	if err != nil {
		return "", false
	}
	c, err := b.Read(ctx, note.ByPath(p))
	if e := errors.From(err); e != nil && e.Kind == errors.FileNotFound {
		if _, err := b.CLI.Run(ctx, "daily:read"); err != nil {
			return "", false
		}
		c, err = b.Read(ctx, note.ByPath(p))
	}
	return c.Content, err == nil
}
