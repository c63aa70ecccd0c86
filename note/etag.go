package note

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

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

// The daily note operations.
const (
	DailyRead    = "read"
	DailyAppend  = "append"
	DailyPrepend = "prepend"
)

// DailyRequest is one operation on the daily note of a date.
type DailyRequest struct {
	Date    time.Time
	Op      string
	Content string
	Inline  bool
}

// Daily reports an operation on a daily note.
type Daily struct {
	Path    string `json:"path" jsonschema:"vault-relative path of the daily note"`
	Date    string `json:"date" jsonschema:"its date, YYYY-MM-DD"`
	Created bool   `json:"created,omitempty" jsonschema:"true when the note was created (from the daily notes template) by this call"`
	Content string `json:"content,omitempty" jsonschema:"read: the note's exact content"`
	ETag    string `json:"etag,omitempty" jsonschema:"the note's version (after the write); absent when the app wrote it"`
	Bytes   int    `json:"bytes,omitempty" jsonschema:"append and prepend: bytes of content added"`
}

// NoDaily is the FILE_NOT_FOUND error for a day without a daily note,
// which would be at p.
func NoDaily(date, p string) *errors.Error {
	return errors.E(errors.FileNotFound, "there is no daily note for %s yet (it would be %s)", date, p).
		With("path", p).WithHint("Append or prepend to it to create it from the daily notes template.")
}
