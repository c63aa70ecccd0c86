package tools

import (
	"context"
	"encoding/json"
	stderrors "errors"
	"fmt"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type queryDataviewArgs struct {
	Query  string `json:"query" jsonschema:"A dataview block's text, or =expression." validate:"required,max=16384"`
	Origin string `json:"origin,omitempty" jsonschema:"The note it runs from (this)." validate:"omitempty,notepath"`
}

// dataviewAnswer is a query's answer in Dataview's normalised form.
type dataviewAnswer struct {
	Type    string   `json:"type" jsonschema:"table, list, task, calendar or inline"`
	Headers []string `json:"headers,omitempty" jsonschema:"a table's column names"`
	// Values are JSON: links {path, subpath?, display?, embed?}, dates
	// ISO, durations ISO 8601, tasks {path, line, text, task, status,
	// completed, children}.
	Values    any    `json:"values" jsonschema:"rows (lists of cells), list items, tasks (or {key, rows} groups), calendar days, or the inline value"`
	Markdown  string `json:"markdown,omitempty" jsonschema:"the Markdown Dataview renders for it"`
	Total     int    `json:"total" jsonschema:"rows, items, tasks or groups in all"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"true when only the first rows are here, to keep the answer small"`
	Partial   bool   `json:"partial,omitempty" jsonschema:"true when the evaluation stopped early: the rows found until then"`
	Stopped   string `json:"stopped,omitempty" jsonschema:"why it stopped early"`
}

var queryDataview = spec[queryDataviewArgs, dataviewAnswer]{
	name:        "obsidian_query_dataview",
	toolset:     "read",
	title:       "Query Dataview",
	description: "Run a Dataview query (TABLE/LIST/TASK/CALENDAR, FROM, WHERE, SORT, GROUP BY, FLATTEN, LIMIT) or =expression over properties and inline fields (key:: value), as Dataview answers: Markdown and JSON.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a queryDataviewArgs) (dataviewAnswer, error) {
		q, err := dataviewQuery(a.Query)
		if err != nil {
			return dataviewAnswer{}, err
		}
		if v.Dataview == nil {
			return dataviewAnswer{}, errors.E(errors.Unsupported, "Dataview queries are answered from the vault folder, which this server does not have").
				WithHint("Give the server the vault folder (--vault-path).")
		}
		if a.Origin != "" {
			q.Origin = note.Locator{Path: a.Origin}
		}
		res, err := v.Dataview.QueryDataview(ctx, q)
		if err != nil {
			return dataviewAnswer{}, dataviewError(err)
		}
		return fitDataview(res), nil
	},
	raw:    true,
	text:   func(a dataviewAnswer) string { return a.Markdown },
	notice: dataviewNotice,
}

// dataviewQuery reads the query argument: a DQL query (a whole fenced
// block is taken too), or "=expr"; scripts are refused.
func dataviewQuery(text string) (note.DataviewQuery, error) {
	t := strings.TrimSpace(text)
	if inner, ok := strings.CutPrefix(t, "```dataview"); ok && strings.HasSuffix(inner, "```") {
		if strings.HasPrefix(inner, "js") {
			return note.DataviewQuery{}, scriptRefused()
		}
		t = strings.TrimSpace(strings.TrimSuffix(inner, "```"))
	}
	switch {
	case strings.HasPrefix(t, "$="), strings.HasPrefix(t, "```dataviewjs"):
		return note.DataviewQuery{}, scriptRefused()
	case strings.HasPrefix(t, "="):
		return note.DataviewQuery{Query: strings.TrimSpace(t[1:]), Inline: true}, nil
	}
	return note.DataviewQuery{Query: t}, nil
}

// dataviewError says what a query's failure means to the caller: one
// that does not parse names where and what was expected; one Dataview
// refuses as it runs says why.
func dataviewError(err error) error {
	var pe *dataview.ParseError
	var qe *dataview.QueryError
	var be *dataview.BoundError
	switch {
	case stderrors.As(err, &be):
		return errors.InvalidFields(errors.Field{Field: "query", Message: be.Msg})
	case stderrors.As(err, &pe):
		return errors.InvalidFields(errors.Field{Field: "query", Message: fmt.Sprintf("does not parse as Dataview reads it: %v", pe)})
	case stderrors.As(err, &qe):
		return errors.E(errors.InvalidParams, "Dataview refuses this query: %s", qe.Msg).
			WithHint("Fix the query as the message says; Dataview itself answers the same way.")
	}
	return err
}

func scriptRefused() error {
	return errors.InvalidFields(errors.Field{Field: "query", Message: "is a DataviewJS script (dataviewjs, $=): scripts run JavaScript in the app, which this server does not run; write it as a DQL query or an =expression"})
}

// fitDataview makes the answer, cut to its first rows when its JSON would
// be over the answer's bound.
func fitDataview(res *dataview.Result) dataviewAnswer {
	total := res.Len()
	for n := total; ; n = n / 2 {
		res.Truncate(n)
		a := dataviewAnswer{Type: res.Type, Headers: res.Headers, Values: dataview.JSON(res.Values), Markdown: res.Markdown,
			Total: total, Truncated: n < total, Partial: res.Partial, Stopped: res.Stopped}
		if res.Type == "calendar" {
			a.Markdown = ""
		}
		b, _ := json.Marshal(a)
		if len(b) <= maxAnswer || n <= 1 {
			return a
		}
	}
}

func dataviewNotice(a dataviewAnswer) string {
	var parts []string
	if a.Type == "calendar" {
		parts = append(parts, "a calendar has no Markdown: its days are in the structured values")
	}
	if a.Truncated {
		parts = append(parts, fmt.Sprintf("truncated: the first %d of %d shown, to keep the answer small; narrow the query (WHERE, LIMIT)", lenOf(a.Values), a.Total))
	}
	if a.Partial {
		parts = append(parts, "partial: "+a.Stopped+"; the rows are those found until then")
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

func lenOf(v any) int {
	if l, ok := v.([]any); ok {
		return len(l)
	}
	return 1
}
