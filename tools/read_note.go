package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

type readNoteArgs struct {
	locator
	Section string `json:"section,omitempty" jsonschema:"Only this section: a heading path such as Plan > Risks, or a unique heading." validate:"omitempty,max=500,nocontrols,excluded_with=Lines"`
	Lines   string `json:"lines,omitempty" jsonschema:"Only these lines: 10-20, 10- or 10." validate:"omitempty,linerange"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"A cut read's next_cursor, to read on." validate:"omitempty,max=300,excluded_with=Section Lines"`
	// Dataview shows a dashboard note as a person sees it in Obsidian.
	Dataview bool `json:"dataview,omitempty" jsonschema:"Answer Dataview queries in place (dashboards)." validate:"excluded_with=Cursor"`
}

// maxRead bounds the text one read returns (see maxAnswer); a longer note
// is returned in parts, each ending on a whole line.
const maxRead = 100_000

// readResult is a read: the whole note, or the part asked for.
type readResult struct {
	Path    string `json:"path" jsonschema:"vault-relative path of the note"`
	Content string `json:"content" jsonschema:"the exact text read: the whole note, frontmatter included, or the section or lines asked for"`
	ETag    string `json:"etag" jsonschema:"hash of the whole note's current content, whatever part was read; it changes whenever the note does"`
	Section string `json:"section,omitempty" jsonschema:"the full heading path of the section read"`
	// Lines is set when less than the whole note was read.
	Lines     lineRange `json:"lines,omitzero" jsonschema:"the lines returned, when not the whole note"`
	Truncated bool      `json:"truncated,omitempty" jsonschema:"true when the part asked for was over 100 KB and only its start was returned"`
	// NextCursor continues a truncated read where it stopped, inside a
	// line if need be: the pages put together are the part byte for byte.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"when truncated: pass as cursor to read on from exactly where this part stopped"`
	// Queries is how many Dataview queries were evaluated in the text
	// (with dataview).
	Queries int `json:"dataview_queries,omitempty" jsonschema:"with dataview: how many queries were answered in place; the content is then not the note's exact text"`
}

type lineRange struct {
	Start int `json:"start" jsonschema:"first line returned, 1-based"`
	End   int `json:"end" jsonschema:"last line returned"`
	Total int `json:"total" jsonschema:"lines in the whole note"`
}

var readNote = spec[readNoteArgs, readResult]{
	name:        "obsidian_read_note",
	toolset:     "read",
	title:       "Read note",
	description: "Read a note's exact Markdown, or only a `section` (heading path) or `lines`. Structured: {path, content, etag, section, lines}. A part over 100 KB is cut (truncated: true); pass its next_cursor as `cursor` to read on.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a readNoteArgs) (readResult, error) {
		c, err := readText(ctx, v, a.note())
		if err != nil {
			return readResult{}, err
		}
		if a.Cursor != "" {
			return readOn(c, a.Cursor)
		}
		r, err := readPart(c, a.Section, a.Lines)
		if err != nil || !a.Dataview {
			return r, err
		}
		if v.Dataview == nil {
			return readResult{}, errors.E(errors.Unsupported, "Dataview queries are answered from the vault folder, which this server does not have").
				WithHint("Read the note without dataview, or give the server the vault folder (--vault-path).")
		}
		r.Content, r.Queries = renderDataview(ctx, v, c.Path, r.Content)
		return r, nil
	},
	raw:    true,
	text:   func(r readResult) string { return r.Content },
	notice: readNotice,
}

// readNotice is what the text block of the note leaves out: which note
// and version it is (the etag for if_match), and where a part cut short
// goes on.
func readNotice(r readResult) string {
	about := fmt.Sprintf("[%s, etag %s", r.Path, r.ETag)
	if r.Section != "" {
		about += ", section " + r.Section
	}
	if r.Lines != (lineRange{}) {
		about += fmt.Sprintf(", lines %d-%d of %d", r.Lines.Start, r.Lines.End, r.Lines.Total)
	}
	if r.Queries > 0 {
		about += fmt.Sprintf("; %d Dataview queries shown answered, each block's query kept in a %%%% comment: the note's own text has the queries", r.Queries)
	}
	if !r.Truncated {
		return about + "]"
	}
	return about + fmt.Sprintf("; truncated to keep the answer under 100 KB: call again with cursor %q to read on from exactly here]", r.NextCursor)
}

// readPart cuts the part a read asks for out of the note.
func readPart(c note.Content, section, lines string) (readResult, error) {
	r := readResult{Path: c.Path, Content: c.Content, ETag: note.ETag([]byte(c.Content))}
	ls := metadata.LinesOf(c.Content)
	total := ls.Count()
	first, last := 1, total
	switch {
	case section != "":
		meta := metadata.Parse([]byte(c.Content))
		i, cands := meta.FindSection(section)
		if i < 0 {
			return readResult{}, sectionError(section, c.Path, meta, cands)
		}
		r.Section = meta.HeadingPath(i)
		first, last = meta.Headings[i].Line, meta.Headings[i].EndLine
	case lines != "":
		first, last, _ = parseLines(lines)
		if first > total {
			return readResult{}, errors.InvalidFields(errors.Field{Field: "lines", Message: fmt.Sprintf("starts after the note's last line: %s has %d lines", c.Path, total)})
		}
		if last == 0 || last > total {
			last = total
		}
	}
	if first == 1 && last == total && len(c.Content) <= maxRead {
		return r, nil
	}
	return page(r, ls, ls.Start(first), ls.Start(last+1)), nil
}

// page is the part of the note from byte from to byte to, cut to fit one
// answer: at its last line end within maxRead, or, for a line longer than
// that, inside it at a character boundary. A cut part carries the cursor
// that reads on.
func page(r readResult, ls metadata.Lines, from, to int) readResult {
	part := r.Content[from:to]
	if len(part) > maxRead {
		n := strings.LastIndexByte(part[:maxRead], '\n') + 1
		if n == 0 {
			n = len(cutUTF8(part, maxRead))
		}
		part = part[:n]
		r.Truncated = true
		// The cursor names the note and its version, and where the part
		// asked for ends.
		r.NextCursor = cursor{Offset: from + n, End: to, Key: key("obsidian_read_note", r.Path, r.ETag)}.encode()
	}
	r.Content = part
	r.Lines = lineRange{Start: ls.Of(from), End: ls.Of(from + len(part) - 1), Total: ls.Count()}
	return r
}

// readOn is the read a cursor continues, on the note as it is now.
func readOn(c note.Content, s string) (readResult, error) {
	r := readResult{Path: c.Path, Content: c.Content, ETag: note.ETag([]byte(c.Content))}
	cur, ok := decodeCursor(s, key("obsidian_read_note", c.Path, r.ETag))
	if !ok || cur.Offset >= cur.End || cur.End > len(c.Content) {
		return readResult{}, errors.InvalidFields(errors.Field{Field: "cursor",
			Message: "does not continue a read of this note as it is now: pass next_cursor unchanged with the same note; if the note changed since (its etag differs), read it again without cursor"})
	}
	return page(r, metadata.LinesOf(c.Content), cur.Offset, cur.End), nil
}

// parseLines reads a lines argument: "A-B", "A-" or "A" (last 0: to the end).
func parseLines(s string) (first, last int, msg string) {
	const usage = "must be a 1-based line range: 10-20, 10- (to the end) or 10"
	a, b, isRange := strings.Cut(strings.TrimSpace(s), "-")
	first, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || first < 1 {
		return 0, 0, usage
	}
	last = first
	if isRange {
		last = 0
		if b = strings.TrimSpace(b); b != "" {
			if last, err = strconv.Atoi(b); err != nil || last < first {
				return 0, 0, usage + ", with the end not before the start"
			}
		}
	}
	return first, last, ""
}

func checkLines(s string) string {
	_, _, msg := parseLines(s)
	return msg
}

// sectionError explains a section that is missing or ambiguous.
func sectionError(section, p string, meta *metadata.Note, cands []string) error {
	if len(cands) > 0 {
		return patch.AmbiguousHeading(fmt.Sprintf("the section %q matches %d headings in %s", section, len(cands), p), cands)
	}
	return patch.MissingHeading(meta, section, fmt.Sprintf("no section %q in %s", section, p)).With("path", p)
}
