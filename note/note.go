// Package note is the vocabulary shared by the tools and every backend:
// how a note is located, what operations take and return, which paths are
// safe, how a name resolves like a wikilink, and the byte rules of append
// and prepend. Keeping these here gives every backend one contract, and lets
// the test fake of the Obsidian CLI reuse the same rules.
//
// It does no I/O.
package note

import (
	"errors"
	"time"
)

// ErrNeedsFolder is wrapped by a backend's error for what only the vault
// folder can do (content the CLI cannot carry, another date's daily note):
// the router serves such a call from the folder when it has one.
var ErrNeedsFolder = errors.New("this needs the vault folder")

// Locator names one existing note: Path exactly (vault-relative, with
// extension) or Name like a wikilink. Exactly one of them is set.
type Locator struct {
	Path string
	Name string
	// IfMatch, when set, is the etag of the version the caller read: a
	// delete or move of another version is refused with REVISION_CONFLICT.
	// The native engine checks it under its write lock, at the moment of
	// the change, so nothing can slip in between the check and the act.
	IfMatch string
}

// ByPath locates a note by its exact vault-relative path.
func ByPath(p string) Locator { return Locator{Path: p} }

// ByName locates a note like a wikilink.
func ByName(n string) Locator { return Locator{Name: n} }

// String is for logs and messages.
func (l Locator) String() string {
	if l.Path != "" {
		return l.Path
	}
	return l.Name
}

// CreateRequest describes a note to create. Path or Name (with optional
// Folder) says where; MarkdownPath gives the resulting path.
type CreateRequest struct {
	Path      string
	Name      string
	Folder    string
	Content   string
	Template  string
	Overwrite bool
	Open      bool
}

// Target is the vault-relative path the request creates.
func (r CreateRequest) Target() string {
	if r.Path != "" {
		return WithDefaultExt(r.Path)
	}
	if r.Folder == "" {
		return WithDefaultExt(r.Name)
	}
	return trimSlashes(r.Folder) + "/" + WithDefaultExt(r.Name)
}

// TargetField names the argument that gave the target, for errors.
func (r CreateRequest) TargetField() string {
	if r.Path != "" {
		return "path"
	}
	return "name"
}

// Created reports a create.
type Created struct {
	Path string `json:"path" jsonschema:"vault-relative path of the note"`
	// Overwrote is true when an existing note was replaced.
	Overwrote bool `json:"overwrote" jsonschema:"true when an existing note was replaced (overwrite: true)"`
	Size      int  `json:"size" jsonschema:"bytes of content written (0 when created from a template)"`
	Opened    bool `json:"opened" jsonschema:"true when the note was opened in Obsidian"`
}

// Content is a note's exact bytes.
type Content struct {
	Path    string `json:"path" jsonschema:"vault-relative path of the note"`
	Content string `json:"content" jsonschema:"the note's exact content, frontmatter included"`
}

// Written reports an append or prepend.
type Written struct {
	Path  string `json:"path" jsonschema:"vault-relative path of the note"`
	Bytes int    `json:"bytes" jsonschema:"bytes of content added"`
	// ETag is set when the write was checked against if_match.
	ETag string `json:"etag,omitempty" jsonschema:"the note's version after the write, when if_match was given"`
}

// Deleted reports a delete.
type Deleted struct {
	Path      string `json:"path" jsonschema:"vault-relative path of the deleted note"`
	Permanent bool   `json:"permanent" jsonschema:"false: moved to the trash (recoverable); true: deleted permanently"`
	// TrashPath is known when this server moved the note to the vault's
	// .trash folder itself; the app's trash may be the system's.
	TrashPath string `json:"trash_path,omitempty" jsonschema:"where the note now is in the vault's .trash folder, when the server put it there (absent when Obsidian did)"`
}

// Moved reports a move or rename.
type Moved struct {
	From string `json:"from" jsonschema:"the note's previous vault-relative path"`
	To   string `json:"to" jsonschema:"the note's new vault-relative path"`
	// Links is set when this server rewrote the links itself. When Obsidian
	// moves the note, its "Automatically update internal links" setting
	// decides, and it reports no counts.
	Links *LinkChanges `json:"links,omitempty" jsonschema:"links this server rewrote so they still point at the moved note (absent when Obsidian did the move and updated links per its own setting)"`
}

// LinkChanges counts the links a move rewrote.
type LinkChanges struct {
	Links int `json:"links" jsonschema:"links rewritten"`
	Notes int `json:"notes" jsonschema:"notes whose links were rewritten"`
	// Paths lists at most MaxListed of the rewritten notes.
	Paths []string `json:"paths" jsonschema:"the rewritten notes, sorted (at most 100)"`
	// Failed lists notes whose links could not be rewritten.
	Failed []string `json:"failed,omitempty" jsonschema:"notes that link to the moved note but could not be rewritten (e.g. read-only); fix their links by hand"`
}

// MaxListed bounds the paths a result lists, to keep answers small.
const MaxListed = 100

// TagRename is what renaming a tag in many notes did.
type TagRename struct {
	Notes, Uses int
	// Paths lists at most MaxListed of the changed notes, in the order
	// they were changed.
	Paths []string
	// Failed lists the notes that could not be changed, with why.
	Failed []FailedNote
}

// FailedNote is a note a vault-wide edit could not change, and why.
type FailedNote struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Opened reports an open.
type Opened struct {
	Path   string `json:"path" jsonschema:"vault-relative path of the opened note"`
	NewTab bool   `json:"new_tab" jsonschema:"true when it was opened in a new tab"`
}

// Info describes a note's file.
type Info struct {
	Path      string    `json:"path" jsonschema:"vault-relative path"`
	Name      string    `json:"name" jsonschema:"file name without extension"`
	Extension string    `json:"extension" jsonschema:"extension without the dot, e.g. md"`
	Size      int64     `json:"size" jsonschema:"size in bytes"`
	Created   time.Time `json:"created" jsonschema:"creation time, RFC 3339, UTC"`
	Modified  time.Time `json:"modified" jsonschema:"last modification time, RFC 3339, UTC"`
}

// Command is one of the app's commands (its command palette).
type Command struct {
	ID   string `json:"id" jsonschema:"the command's id, e.g. editor:save-file; pass it to obsidian_run_command"`
	Name string `json:"name,omitempty" jsonschema:"its name in the command palette, when the app gives it"`
}

// CommandRun reports a command run.
type CommandRun struct {
	ID     string `json:"id" jsonschema:"the command run"`
	Output string `json:"output,omitempty" jsonschema:"what the app printed, if anything"`
}

// FolderChange is what a folder operation did: a folder created, moved
// (its files and every link to them with it) or deleted to the trash.
type FolderChange struct {
	Folder  string `json:"folder" jsonschema:"the folder's vault-relative path (before a move)"`
	To      string `json:"to,omitempty" jsonschema:"after a move: its new path"`
	Changed bool   `json:"changed" jsonschema:"false when there was nothing to do (the folder already existed)"`
	// Files counts the files a move took along.
	Files     int          `json:"files,omitempty" jsonschema:"files moved with the folder"`
	TrashPath string       `json:"trash_path,omitempty" jsonschema:"where a deleted folder went (the vault's .trash)"`
	Links     *LinkChanges `json:"links,omitempty" jsonschema:"links this server rewrote so they still point at the moved files"`
}
