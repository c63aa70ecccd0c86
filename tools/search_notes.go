package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type searchNotesArgs struct {
	Query  string `json:"query" jsonschema:"Words or a question; \"phrase\", -word, a OR b, path:, file:, tag:, [prop:value], [prop]. In regex mode, an RE2 pattern." validate:"required,max=1000"`
	Mode   string `json:"mode,omitempty" jsonschema:"text (ranked, default) or regex." validate:"omitempty,oneof=text regex"`
	Folder string `json:"folder,omitempty" jsonschema:"Only notes in this folder and below." validate:"omitempty,folder"`
	paging
}

// searchLimit is how many notes a search answers with unless asked: on
// the Help vault's labelled questions (docs/benchmarks.md), 10 results
// held the note asked about for 47 of 60 questions in 4.4 KB of text on
// average, 20 for 51 in 7.5 KB, 5 for 44 in 2.9 KB (20 results, three
// lines each, were 12.9 KB); a model that wants more asks for the next
// page.
const searchLimit = 10

var searchNotes = spec[searchNotesArgs, note.SearchResult]{
	name:        "obsidian_search_notes",
	toolset:     "read",
	title:       "Search notes",
	description: "Ranked full-text search of the vault's notes; title, aliases, tags and headings weigh most. Query syntax as in Obsidian: \"phrase\", -word, OR, path:, tag:, [property:value]. Results: path, score, matching lines with <mark></mark>. Paged, 10 by default.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a searchNotesArgs) (note.SearchResult, error) {
		mode := a.Mode
		if mode == "" {
			mode = note.SearchText
		}
		k := key("search", a.Query, mode, a.Folder)
		off, err := a.offset(k)
		if err != nil {
			return note.SearchResult{}, err
		}
		res, err := v.Search.Search(ctx, note.SearchRequest{Query: a.Query, Mode: mode, Folder: a.Folder, Offset: off, Limit: a.limitOr(searchLimit)})
		if err != nil {
			return note.SearchResult{}, err
		}
		n := fit(res.Hits)
		res.Truncated = n < len(res.Hits)
		res.Hits = res.Hits[:n]
		if off+n < res.Total {
			res.NextCursor = nextCursor(k, off+n)
		}
		return res, nil
	},
}
