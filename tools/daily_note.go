package tools

import (
	"context"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type dailyNoteArgs struct {
	Operation string `json:"operation" jsonschema:"read, append or prepend." validate:"required,oneof=read append prepend"`
	Period    string `json:"period,omitempty" jsonschema:"day (default), week, month, quarter or year." validate:"omitempty,oneof=day week month quarter year"`
	Date      string `json:"date,omitempty" jsonschema:"A day (YYYY-MM-DD) in the period; default today."`
	Content   string `json:"content,omitempty" jsonschema:"The text to add, stored as sent."`
	Inline    bool   `json:"inline,omitempty" jsonschema:"Join the text to the last line (append) or the first (prepend)."`
}

var dailyNote = spec[dailyNoteArgs, note.Daily]{
	name:        "obsidian_daily_note",
	toolset:     "daily",
	title:       "Daily note",
	description: "Read, append or prepend to the daily note of a day (default today), or with `period` the weekly, monthly, quarterly or yearly one; a missing note is created as Obsidian would (its settings and template). Returns {path, date, period, created, content, etag, bytes}.",
	hints:       hints{},
	run: func(ctx context.Context, v Vault, a dailyNoteArgs) (note.Daily, error) {
		date := time.Now()
		if a.Date != "" {
			d, err := time.ParseInLocation(time.DateOnly, a.Date, time.Local)
			if err != nil {
				return note.Daily{}, errors.InvalidFields(errors.Field{Field: "date", Message: "must be a date YYYY-MM-DD, e.g. 2026-11-23"})
			}
			date = d
		}
		if a.Operation != note.DailyRead && a.Content == "" {
			return note.Daily{}, errors.InvalidFields(errors.Field{Field: "content", Message: "is required to " + a.Operation})
		}
		if a.Operation == note.DailyRead && (a.Content != "" || a.Inline) {
			return note.Daily{}, errors.InvalidFields(errors.Field{Field: "content", Message: "is for append and prepend, not read"})
		}
		return v.Daily.Daily(ctx, note.DailyRequest{Date: date, Period: a.Period, Op: a.Operation, Content: a.Content, Inline: a.Inline})
	},
}
