package patch

import (
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
)

// listed bounds the names a "not found" error lists: enough for any note a
// person writes, and a bounded answer for one that lists thousands.
const listed = 200

// MissingHeading is the error for a heading the note does not have: what
// was asked, and the note's heading paths to choose from, with message as
// the caller words it.
func MissingHeading(n *metadata.Note, heading, message string) *errors.Error {
	paths := make([]string, 0, min(len(n.Headings), listed))
	for i := range n.Headings {
		if len(paths) == listed {
			break
		}
		paths = append(paths, n.HeadingPath(i))
	}
	hint := "The note has no headings."
	if len(paths) > 0 {
		hint = "Its headings: " + strings.Join(paths[:min(len(paths), 30)], "; ")
		if len(n.Headings) > 30 {
			hint += "; …"
		}
		hint += ". Use one of them (\"Parent > Heading\" when names repeat)."
	}
	e := errors.E(errors.HeadingNotFound, "%s", message).WithHint(hint).
		With("heading", heading).With("headings", paths)
	if len(n.Headings) > listed {
		e = e.With("headings_total", len(n.Headings))
	}
	return e
}

// AmbiguousHeading is the error for a heading path that matches several
// headings, cands listing them with their lines; message is the caller's.
func AmbiguousHeading(message string, cands []string) *errors.Error {
	e := errors.E(errors.AmbiguousName, "%s", message).
		WithHint("Call again with a longer heading path, e.g. \"Parent > Heading\"; the candidates are listed with their lines.")
	e.Candidates = cands
	return e
}

// missingBlock is the error for a block id the note does not carry.
func missingBlock(n *metadata.Note, id string) *errors.Error {
	ids := make([]string, 0, min(len(n.Blocks), listed))
	for _, b := range n.Blocks {
		if len(ids) == listed {
			break
		}
		ids = append(ids, b.ID)
	}
	hint := "The note has no block ids; a block id ends a paragraph or list item as \" ^id\". Read the note to find the text."
	if len(ids) > 0 {
		hint = "Its block ids: ^" + strings.Join(ids[:min(len(ids), 30)], ", ^") + ". Block ids end a paragraph or list item as \" ^id\"."
	}
	return errors.E(errors.BlockNotFound, "no block ^%s in the note; nothing was changed", id).WithHint(hint).
		With("block", id).With("blocks", ids)
}

// missingProperty is the error for a property the frontmatter lacks.
func missingProperty(n *metadata.Note, key string) *errors.Error {
	keys := make([]string, 0, min(len(n.Properties), listed))
	for _, p := range n.Properties {
		if len(keys) == listed {
			break
		}
		keys = append(keys, p.Key)
	}
	hint := "The note has no properties; set create_if_missing to add it."
	if len(keys) > 0 {
		hint = "Its properties: " + strings.Join(keys[:min(len(keys), 30)], ", ") + " (names are case-sensitive); or set create_if_missing to add it."
	}
	return errors.E(errors.PropertyNotFound, "no property %q in the note's frontmatter; nothing was changed", key).WithHint(hint).
		With("property", key).With("properties", keys)
}
