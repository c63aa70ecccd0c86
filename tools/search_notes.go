package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type searchNotesArgs struct {
	Query  string `json:"query" jsonschema:"What to find. Words (all must match, any order, case and accents ignored; a word also finds longer words it begins, compost → composting; when no note has them all, notes with some of them come back marked relaxed), \"exact phrases\", -excluded words, a OR b; filters path:Projects, file:plan, tag:#project (nested tags included), [status:done], [due] (has the property), each negatable (-tag:done). In regex mode: an RE2 regular expression, case-insensitive." validate:"required,max=1000"`
	Mode   string `json:"mode,omitempty" jsonschema:"text (default): ranked word search with the syntax above; regex: notes whose text matches the regular expression, most matches first." validate:"omitempty,oneof=text regex"`
	Folder string `json:"folder,omitempty" jsonschema:"Only search notes in this folder and below, e.g. Projects/2026." validate:"omitempty,folder"`
	paging
}

var searchNotes = spec[searchNotesArgs, note.SearchResult]{
	name:  "obsidian_search_notes",
	title: "Search notes",
	description: "Find notes by what they say: ranked full-text search over every Markdown note of the vault, the way to answer \"what did I write about X?\". " +
		"Matches in a note's title, aliases, tags and headings rank above matches in its body; Japanese and Chinese text is found too. " +
		"Each result has its path, a score (through the Obsidian app without the vault folder: the app's own order, scored by rank), where the words matched, and up to 3 matching lines with line numbers and the matches wrapped in <mark></mark>. " +
		describePaging("results") + " Read a result with obsidian_read_note (`section` or `lines` to read only part of it).",
	hints: hints{readOnly: true, idempotent: true},
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
		res, err := v.Search.Search(ctx, note.SearchRequest{Query: a.Query, Mode: mode, Folder: a.Folder, Offset: off, Limit: a.limit()})
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
