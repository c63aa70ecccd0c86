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
