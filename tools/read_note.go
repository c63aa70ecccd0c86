package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type readNoteArgs struct {
	locator
	Section string `json:"section,omitempty" jsonschema:"Read only this section: a heading path such as Plan > Risks (each part nested in the one before), or one heading's text when it is unique. The section runs from its heading to the next heading of the same or a higher level. Several matches fail with AMBIGUOUS_NAME listing them." validate:"omitempty,max=500,nocontrols,excluded_with=Lines"`
	Lines   string `json:"lines,omitempty" jsonschema:"Read only these lines, 1-based and inclusive: 10-20, 10- (to the end) or 10." validate:"omitempty,linerange"`
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
	Truncated bool      `json:"truncated,omitempty" jsonschema:"true when the part asked for was over 100 KB and only its first lines were returned; read on with lines"`
}

type lineRange struct {
	Start int `json:"start" jsonschema:"first line returned, 1-based"`
	End   int `json:"end" jsonschema:"last line returned"`
	Total int `json:"total" jsonschema:"lines in the whole note"`
}

var readNote = spec[readNoteArgs, readResult]{
	name:  "obsidian_read_note",
	title: "Read note",
	description: "Read a note's exact content, frontmatter included. Locate it by `path` (exact vault-relative path, e.g. `Projects/Plan.md`) or by `name` (resolved like a wikilink: `Plan` or `Projects/Plan`, case-insensitive). " +
		"A name that matches several notes fails with AMBIGUOUS_NAME listing every candidate path; call again with one of them as `path`. " +
		"Read only part of a long note with `section` (a heading path like `Plan > Risks`; see obsidian_get_outline) or `lines` (`10-40`). " +
		"Returns the raw Markdown as text, and {path, content, etag, section, lines} as structured content; `etag` identifies this version of the whole note. " +
		"A part over 100 KB comes back cut at a line end with truncated: true and the lines returned: read on with `lines`.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a readNoteArgs) (readResult, error) {
		c, err := v.Notes.Read(ctx, a.note())
		if err != nil {
			return readResult{}, err
		}
		return readPart(c, a.Section, a.Lines)
	},
	raw:    true,
	text:   func(r readResult) string { return r.Content },
	notice: readNotice,
}

func readNotice(r readResult) string {
	if !r.Truncated {
		return ""
	}
	return fmt.Sprintf("[truncated: lines %d-%d of %d shown, to keep the answer under 100 KB; call again with lines \"%d-\" to read on]",
		r.Lines.Start, r.Lines.End, r.Lines.Total, r.Lines.End+1)
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
	from, to := ls.Start(first), ls.Start(last+1)
	part := c.Content[from:to]
	if len(part) > maxRead {
		cut := strings.LastIndexByte(part[:maxRead], '\n')
		if cut < 0 {
			cut = maxRead - 1 // one line over the budget: cut inside it
		}
		part = part[:cut+1]
		last = first + strings.Count(part, "\n") - 1
		r.Truncated = true
	}
	r.Content = part
	r.Lines = lineRange{Start: first, End: last, Total: total}
	return r, nil
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
		e := errors.E(errors.AmbiguousName, "the section %q matches %d headings in %s", section, len(cands), p).
			WithHint("Call again with a longer heading path, e.g. \"Parent > Heading\"; the candidates are listed with their lines.")
		e.Candidates = cands
		return e
	}
	var all []string
	for i := range meta.Headings {
		all = append(all, meta.HeadingPath(i))
		if len(all) == 30 {
			all = append(all, "…")
			break
		}
	}
	hint := "The note has no headings; read it whole or by lines."
	if len(all) > 0 {
		hint = "Its headings: " + strings.Join(all, "; ") + "."
	}
	return errors.E(errors.FileNotFound, "no section %q in %s", section, p).WithHint(hint)
}
