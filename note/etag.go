package note

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// ETag identifies one version of a note's content: the first 128 bits of
// its SHA-256, in hex. Every backend computes it from the exact bytes, so
// an etag read through one backend holds for a write through the other.
func ETag(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:16])
}

// Change computes a note's new content from its exact current content.
// Returning the content unchanged writes nothing; returning an error
// writes nothing and ends the edit with it. A backend may call it more
// than once, on newer content each time, when another program changes the
// note while it is being edited: it must depend on nothing but its input.
type Change func(current []byte) ([]byte, error)

// Edited reports a note changed by a Change.
type Edited struct {
	Path string `json:"path" jsonschema:"vault-relative path of the note"`
	// ETag is the version the note has now, for the next write's if_match.
	ETag    string `json:"etag" jsonschema:"the note's version after the edit; pass it as if_match to the next write"`
	Changed bool   `json:"changed" jsonschema:"false when the edit left the note as it was (nothing was written)"`
}

// IfMatch wraps change so that it refuses, with REVISION_CONFLICT, any
// content whose etag is not ifMatch; an empty ifMatch accepts any.
func IfMatch(p, ifMatch string, change Change) Change {
	if ifMatch == "" {
		return change
	}
	return func(cur []byte) ([]byte, error) {
		if err := CheckVersion(p, ifMatch, cur); err != nil {
			return nil, err
		}
		return change(cur)
	}
}

// CheckVersion is nil when content is the version ifMatch names (or
// ifMatch is empty), and the REVISION_CONFLICT error otherwise.
func CheckVersion(p, ifMatch string, content []byte) error {
	if ifMatch == "" {
		return nil
	}
	if cur := ETag(content); cur != ifMatch {
		return Conflict(p, cur)
	}
	return nil
}

// Conflict is the REVISION_CONFLICT error for the note at p, whose current
// version is current.
func Conflict(p, current string) *errors.Error {
	return errors.E(errors.RevisionConflict, "%s changed since it was read (its etag is now %s); nothing was written", p, current).
		With("path", p).With("etag", current)
}

// Busy is the REVISION_CONFLICT error for a note at p that another
// program kept changing while it was being edited.
func Busy(p string) *errors.Error {
	return errors.E(errors.RevisionConflict, "%s kept changing while it was being edited (another program is writing it); nothing was written", p).
		With("path", p).WithHint("Wait until the other program (a sync client, say) is done, read the note again and retry.")
}

// OutlineEntry is one heading of a note's outline: its level and text.
type OutlineEntry struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// HeadingPlan is a heading's rename, as the tool works it out and an
// engine carries it out (and its journal records it): the note, the
// version it was read at, its headings before the rename, the one renamed
// and its new text, and the other notes whose links to it follow.
type HeadingPlan struct {
	Target  string         `json:"target"`
	IfMatch string         `json:"if_match,omitempty"`
	Outline []OutlineEntry `json:"outline"`
	Index   int            `json:"index"`
	To      string         `json:"to"`
	Paths   []string       `json:"paths,omitempty"`
}

// HeadingRenamed is what a heading's rename did.
type HeadingRenamed struct {
	Path  string `json:"path" jsonschema:"the note whose heading was renamed"`
	ETag  string `json:"etag,omitempty" jsonschema:"the note's version after the rename"`
	From  string `json:"from" jsonschema:"the heading's text before"`
	To    string `json:"to" jsonschema:"its text now"`
	Links int    `json:"links" jsonschema:"links to the heading rewritten (or, in a dry run, that would be)"`
	Notes int    `json:"notes" jsonschema:"notes whose links were rewritten, the note itself included when its own links were"`
	// Paths are the notes whose links were rewritten, at most MaxListed.
	Paths  []string     `json:"paths" jsonschema:"those notes, sorted (at most 100)"`
	Failed []FailedNote `json:"failed,omitempty" jsonschema:"notes whose links could not be rewritten, with why; the others were"`
	DryRun bool         `json:"dry_run,omitempty" jsonschema:"true when nothing was written"`
}
