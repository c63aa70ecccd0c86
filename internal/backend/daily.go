package backend

import (
	"context"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// daily implements tools.DailyNotes: the periodic note's path is found
// first and checked as a read or a write, then the call is routed.
type daily struct{ r *Router }

func (d daily) Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error) {
	pol := d.r.Policy(ctx)
	if req.Op != note.DailyRead {
		pol = d.r.writePolicy(ctx)
	}
	if pol.Restricts() {
		p, err := d.r.PeriodPath(ctx, req.Date, req.Period)
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
	return serve(ctx, d.r, "daily", true, func(b side) (note.Daily, error) {
		if req.Op == note.DailyRead || b.mode != CLI {
			return b.Daily.Daily(ctx, req)
		}
		p, err := b.paths.PeriodPath(ctx, req.Date, req.Period)
		if err != nil {
			return b.Daily.Daily(ctx, req)
		}
		return recordedApp(ctx, d.r, b, note.PartEdit, note.ByPath(p), "", func() (note.Daily, error) { return b.Daily.Daily(ctx, req) })
	})
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
