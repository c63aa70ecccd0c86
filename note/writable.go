package note

import (
	"fmt"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// The checks every backend makes of a path it is about to write, as the
// tools' errors: INVALID_PARAMS naming the field, PERMISSION_DENIED,
// FILE_EXISTS.

// ValidateWritable checks a path a tool is about to create or move a note
// to: a safe vault-relative path (INVALID_PARAMS naming field otherwise)
// outside the hidden folders Obsidian keeps for itself (PERMISSION_DENIED).
func ValidateWritable(field, p string) error {
	if err := validatePlace(field, p); err != nil {
		return err
	}
	if msg := CheckNewPath(p, true); msg != "" {
		return invalid(field, msg)
	}
	return nil
}

// ValidateFolder checks a folder a tool is about to create (isNew), or
// to move or delete: ValidateWritable's checks, with the names of a new
// one checked as new folder names.
func ValidateFolder(field, p string, isNew bool) error {
	if err := validatePlace(field, p); err != nil {
		return err
	}
	if isNew {
		if msg := CheckNewPath(p, false); msg != "" {
			return invalid(field, msg)
		}
	}
	return nil
}

// validatePlace is what a path written needs to be, whatever its names:
// safe, within bounds, outside Obsidian's own folders.
func validatePlace(field, p string) error {
	if msg := CheckPath(p); msg != "" {
		return invalid(field, msg)
	}
	if msg := CheckBounds(p); msg != "" {
		return invalid(field, msg)
	}
	if seg, ok := spacedSegment(p); ok {
		return invalid(field, fmt.Sprintf("%q starts or ends with a space; Obsidian trims link text, so no link could reach this note (and Windows cannot store such names): remove the space", seg))
	}
	if InDotFolder(p) {
		return errors.E(errors.PermissionDenied, "refused to write %s: names starting with '.' (such as .obsidian/ and .trash/) belong to Obsidian, not to the vault's notes", p).
			WithHint("Choose a path whose folders and file name do not start with '.'.").With("path", p)
	}
	return nil
}

// spacedSegment finds a folder name or file stem that starts or ends with
// white space (found by fuzzing link rewriting: a note moved to " .md" had
// its backlinks rewritten to "[[ ]]", which is no link at all).
func spacedSegment(p string) (string, bool) {
	segs := strings.Split(p, "/")
	segs[len(segs)-1] = Stem(segs[len(segs)-1])
	for _, seg := range segs {
		if seg != strings.TrimSpace(seg) {
			return seg, true
		}
	}
	return "", false
}

// ValidateDestination checks a move's `to`: a folder or a full path.
func ValidateDestination(to string) error {
	if msg := CheckFolder(to); msg != "" {
		return invalid("to", msg)
	}
	if to != "" && to != "/" {
		if msg := CheckNewPath(to, false); msg != "" {
			return invalid("to", msg)
		}
	}
	return nil
}

// ValidateNewName checks a rename's new file name.
func ValidateNewName(name string) error {
	if msg := CheckNewName(name); msg != "" {
		return invalid("new_name", msg)
	}
	if msg := checkNewSegment(name, true); msg != "" {
		return invalid("new_name", msg)
	}
	return nil
}

// InDotFolder reports whether a folder or the file name of p starts with
// '.': the places Obsidian keeps for itself (.obsidian, .trash).
func InDotFolder(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

func invalid(field, msg string) *errors.Error {
	return errors.InvalidFields(errors.Field{Field: field, Message: msg})
}

// Exists is the FILE_EXISTS error for p.
func Exists(p string) *errors.Error {
	return errors.E(errors.FileExists, "a note already exists at %s; nothing was changed", p).With("path", p)
}
