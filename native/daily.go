package native

import (
	"context"
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/internal/atomicfile"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// dailySettings are the core Daily notes plugin's settings, from
// .obsidian/daily-notes.json; missing ones take the plugin's defaults.
type dailySettings struct {
	Folder   string `json:"folder"`
	Format   string `json:"format"`
	Template string `json:"template"`
}

func (v *Engine) dailySettings() dailySettings {
	var s dailySettings
	if data, err := v.readSmall(".obsidian/daily-notes.json", maxConfig); err == nil {
		_ = json.Unmarshal(data, &s) // unreadable settings are the defaults, as in Obsidian
	}
	s.Folder = strings.Trim(strings.TrimSpace(s.Folder), "/")
	if strings.TrimSpace(s.Format) == "" {
		s.Format = "YYYY-MM-DD"
	}
	s.Template = strings.Trim(strings.TrimSpace(s.Template), "/")
	return s
}

// DailyPath is where the daily note for date is, or would be created.
func (v *Engine) DailyPath(ctx context.Context, date time.Time) (string, error) {
	return v.PeriodPath(ctx, date, note.Day)
}

// PeriodPath is where the note of the period that holds date is, or would
// be created.
func (v *Engine) PeriodPath(ctx context.Context, date time.Time, period string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, _, _ := v.periodNote(date, period)
	return p, nil
}

// periodNote is the note of the period ("" is a day) that holds date: its
// path, the period's first day, and the template a new one starts from.
func (v *Engine) periodNote(date time.Time, period string) (p string, start time.Time, template string) {
	if period == "" {
		period = note.Day
	}
	s := v.periodSettings(period)
	start = periodStart(date, period, s.Format)
	return s.path(start), start, s.Template
}

func (s dailySettings) path(date time.Time) string {
	// The format may hold folders ("YYYY/MM/YYYY-MM-DD"), as in Obsidian.
	return note.Join(s.Folder, momentFormat(date, s.Format)+".md")
}

// Daily reads the note of the period (day, week, month, quarter or year)
// that holds req.Date, or adds text at its start or end, creating it first
// from the period's template when missing.
func (v *Engine) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	out := note.Daily{}
	if req.Period != note.Day {
		out.Period = req.Period
	}
	if req.Op == note.DailyRead {
		p, start, _ := v.periodNote(req.Date, req.Period)
		if err := note.ValidateWritable("date", p); err != nil {
			return note.Daily{}, err
		}
		c, err := v.Read(ctx, note.ByPath(p))
		res, err := note.DailyOf(start.Format(time.DateOnly), p, c, err)
		res.Period = out.Period
		return res, err
	}
	p, start, created, err := v.ensurePeriod(ctx, req.Date, req.Period)
	if err != nil {
		return note.Daily{}, err
	}
	apply := note.Append
	if req.Op == note.DailyPrepend {
		apply = note.Prepend
	}
	res, err := v.Edit(ctx, note.ByPath(p), "", func(cur []byte) ([]byte, error) {
		return apply(cur, []byte(req.Content), req.Inline), nil
	})
	if err != nil {
		return note.Daily{}, err
	}
	out.Path, out.Date = p, start.Format(time.DateOnly)
	out.Created, out.ETag, out.Bytes = created, res.ETag, len(req.Content)
	return out, nil
}

// EnsureDaily creates the daily note for date from the daily notes
// template unless it exists, and returns its path and whether it did.
func (v *Engine) EnsureDaily(ctx context.Context, date time.Time) (p string, created bool, err error) {
	p, _, created, err = v.ensurePeriod(ctx, date, note.Day)
	return p, created, err
}

// ensurePeriod creates the note of the period that holds date from its
// template unless it exists.
func (v *Engine) ensurePeriod(ctx context.Context, date time.Time, period string) (p string, start time.Time, created bool, err error) {
	p, start, tpl := v.periodNote(date, period)
	if err := note.ValidateWritable("date", p); err != nil {
		return p, start, false, err
	}
	created, err = v.createDaily(ctx, start, p, tpl)
	return p, start, created, err
}

// createDaily creates the daily note at p from the template tpl (none
// when ""), unless it exists; created says whether it did.
func (v *Engine) createDaily(ctx context.Context, date time.Time, p, tpl string) (bool, error) {
	if _, err := v.root.Stat(p); err == nil {
		return false, nil
	}
	var data []byte
	if tpl != "" {
		if path.Ext(tpl) == "" {
			tpl += ".md"
		}
		if err := v.Policy().CheckRead(tpl); err != nil {
			return false, err
		}
		raw, err := v.readSmall(tpl, maxConfig)
		if err != nil {
			return false, errors.E(errors.FileNotFound, "the daily notes template %s cannot be read: %v", tpl, unwrapPath(err)).
				WithHint("Fix the template in Obsidian's settings (Daily notes → Template file location), or create the note yourself.").WithCause(err)
		}
		// The title is the note's name; {{date}} and {{time}} are the
		// note's day with the time now, as the plugin fills them.
		now := time.Now()
		at := time.Date(date.Year(), date.Month(), date.Day(), now.Hour(), now.Minute(), now.Second(), 0, now.Location())
		data = fillTemplate(raw, note.Stem(p), at)
	}
	release, err := v.writing(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	dirs, err := v.madeDirs(ctx, note.Dir(p))
	if err != nil {
		return false, err
	}
	defer dirs()
	part, err := recordPart(ctx, note.PartCreate, p, "", nil, data)
	if err != nil {
		return false, err
	}
	err = atomicfile.Create(v.root, p, data)
	part.Done(err)
	switch {
	case errors.Is(err, fs.ErrExist):
		return false, nil // created meanwhile: append to it
	case err != nil:
		return false, FileError(err, p)
	}
	return true, nil
}
