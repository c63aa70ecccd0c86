package tools

import (
	"context"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type dailyNoteArgs struct {
	Operation string `json:"operation" jsonschema:"read (the note's content), append (text at its end) or prepend (text at its top, after the frontmatter)." validate:"required,oneof=read append prepend"`
	Date      string `json:"date,omitempty" jsonschema:"The day, YYYY-MM-DD. Default: today, on this computer's clock."`
	Content   string `json:"content,omitempty" jsonschema:"append and prepend: the text to add, stored exactly as sent."`
	Inline    bool   `json:"inline,omitempty" jsonschema:"append: join the text to the last line; prepend: nothing after it. Default false: the text is a Markdown block of its own, as with obsidian_append_to_note and obsidian_prepend_to_note."`
}

var dailyNote = spec[dailyNoteArgs, note.Daily]{
	name:  "obsidian_daily_note",
	title: "Daily note",
	description: "Read the daily note of a day (default today), or add text at its end or top, the way a journal or log is kept. " +
		"The note is found, and created when missing, with the vault's Daily notes settings: its folder, date format and template. Through the Obsidian app, today's note is the app's own (daily:append). " +
		"Reading a day without a note fails with FILE_NOT_FOUND saying where it would be; appending or prepending creates it. Returns {path, date, created, content, etag, bytes}.",
	hints: hints{},
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
		return v.Daily.Daily(ctx, note.DailyRequest{Date: date, Op: a.Operation, Content: a.Content, Inline: a.Inline})
	},
}
