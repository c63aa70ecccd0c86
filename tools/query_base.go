package tools

import (
	"context"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type queryBaseArgs struct {
	Path string `json:"path,omitempty" jsonschema:"Vault-relative path, e.g. Books.base. None: list the bases." validate:"omitempty,notepath"`
	Name string `json:"name,omitempty" jsonschema:"Or its name, e.g. Books.base." validate:"omitempty,notename"`
	View string `json:"view,omitempty" jsonschema:"The view's name; default the first." validate:"omitempty,max=200,nocontrols"`
	paging
}

// baseInfo is one base of the vault, with its views.
type baseInfo struct {
	Path  string       `json:"path" jsonschema:"vault-relative path of the base"`
	Views []bases.View `json:"views" jsonschema:"its views: name, type, limit, columns"`
	Error string       `json:"error,omitempty" jsonschema:"why the base could not be read"`
}

type baseAnswer struct {
	// Listing the bases.
	Bases []baseInfo `json:"bases,omitempty" jsonschema:"without path or name: the vault's bases"`
	// Querying one.
	Path    string      `json:"path,omitempty" jsonschema:"the base queried"`
	View    string      `json:"view,omitempty" jsonschema:"the view's name"`
	Columns []string    `json:"columns,omitempty" jsonschema:"the view's columns, in order"`
	Total   int         `json:"total" jsonschema:"bases, or rows, in all"`
	Rows    []bases.Row `json:"rows,omitempty" jsonschema:"this page of the view's rows: path, group, values by column"`
	// Summaries and Groups are over every row of the view, whatever
	// the page.
	Summaries  map[string]any         `json:"summaries,omitempty" jsonschema:"the view's summaries over all its rows: column → value"`
	Groups     []bases.GroupSummaries `json:"groups,omitempty" jsonschema:"when the view groups: each group's summaries"`
	NextCursor string                 `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last"`
	Truncated  bool                   `json:"truncated,omitempty" jsonschema:"true when the page was cut short to keep the answer small"`
	// Partial is the evaluation stopped early (cancelled, out of time,
	// over its budget): the rows are those found until then.
	Partial bool   `json:"partial,omitempty" jsonschema:"true when the evaluation stopped early: the rows are those found until then, without summaries"`
	Stopped string `json:"stopped,omitempty" jsonschema:"why the evaluation stopped early"`
}

var queryBase = spec[queryBaseArgs, baseAnswer]{
	name:        "obsidian_query_base",
	toolset:     "bases",
	title:       "Query base",
	description: "Answer a view of a base (.base): the files its filters select with its columns, sorted, grouped and limited as it says; or list the bases and their views. Paged.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a queryBaseArgs) (baseAnswer, error) {
		if a.Path != "" && a.Name != "" {
			return baseAnswer{}, errors.InvalidFields(errors.Field{Field: "path", Message: "give path or name, not both"}, errors.Field{Field: "name", Message: "give name or path, not both"})
		}
		if a.Path == "" && a.Name == "" {
			if a.View != "" {
				return baseAnswer{}, errors.InvalidFields(errors.Field{Field: "path", Message: "a view needs its base: give path or name (or leave view out to list the bases)"})
			}
			return listBases(ctx, v, a)
		}
		for field, val := range map[string]string{"path": a.Path, "name": a.Name} {
			if val != "" && !strings.EqualFold(note.Ext(val), "base") {
				return baseAnswer{}, errors.InvalidFields(errors.Field{Field: field, Message: "must name a base, ending in .base"})
			}
		}
		k := key("base", a.Path, a.Name, a.View)
		off, err := a.offset(k)
		if err != nil {
			return baseAnswer{}, err
		}
		res, err := v.Bases.QueryBase(ctx, note.Locator{Path: a.Path, Name: a.Name}, a.View)
		if err != nil {
			return baseAnswer{}, err
		}
		rows := res.Rows[min(off, len(res.Rows)):min(off+a.limit(), len(res.Rows))]
		n := fit(rows)
		ans := baseAnswer{Path: res.Path, View: res.View, Columns: res.Columns, Total: res.Total, Rows: rows[:n], Truncated: n < len(rows),
			Summaries: res.Summaries, Groups: res.Groups, Partial: res.Partial, Stopped: res.Stopped}
		if off+n < res.Total {
			ans.NextCursor = nextCursor(k, off+n)
		}
		return ans, nil
	},
}

// listBases lists the vault's .base files, each with its views.
func listBases(ctx context.Context, v Vault, a queryBaseArgs) (baseAnswer, error) {
	k := key("bases")
	off, err := a.offset(k)
	if err != nil {
		return baseAnswer{}, err
	}
	l, err := v.Files.List(ctx, note.ListRequest{Recursive: true, Ext: "base", Offset: off, Limit: a.limit()})
	if err != nil {
		return baseAnswer{}, err
	}
	ans := baseAnswer{Bases: []baseInfo{}, Total: l.Total}
	for _, e := range l.Entries {
		info := baseInfo{Path: e.Path, Views: []bases.View{}}
		c, err := v.Notes.Read(ctx, note.ByPath(e.Path))
		if err == nil {
			var b *bases.Base
			if b, err = bases.Parse([]byte(c.Content)); err == nil {
				info.Views = append(info.Views, b.Views...)
			}
		}
		if err != nil {
			info.Error = errors.From(err).Message
		}
		ans.Bases = append(ans.Bases, info)
	}
	if off+len(l.Entries) < l.Total {
		ans.NextCursor = nextCursor(k, off+len(l.Entries))
	}
	return ans, nil
}
