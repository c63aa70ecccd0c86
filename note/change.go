package note

import (
	"fmt"
	"time"
)

// A VaultChange is one tool call's changes to a vault, as the change record
// keeps them: when, by which tool and client, and each file it touched
// (a part). A call that touches many notes (a rename's link rewrites, a
// tag renamed across the vault) is one change of many parts.
type VaultChange struct {
	ID     string    `json:"id" jsonschema:"the change's id, for obsidian_undo and obsidian_history's id"`
	Time   time.Time `json:"time" jsonschema:"when the change was made"`
	Tool   string    `json:"tool" jsonschema:"the tool that made it"`
	Client string    `json:"client,omitempty" jsonschema:"the client that called the tool (its clientInfo name, or the OAuth client or API key), when known"`
	// Undoes are the changes this one reverted, for an undo: their ids,
	// newest first, separated by commas.
	Undoes string       `json:"undoes,omitempty" jsonschema:"for an undo: the ids of the changes it reverted, separated by commas"`
	Parts  []ChangePart `json:"parts" jsonschema:"each file the change touched, in the order it was written"`
}

// Paths are the notes a change touched, each once, in order: a move's
// both ends.
func (c VaultChange) Paths() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range c.Parts {
		add(p.Path)
		add(p.To)
	}
	return out
}

// What a part did to its file.
const (
	PartCreate = "create" // a file that did not exist
	PartEdit   = "edit"   // a file's bytes replaced
	PartDelete = "delete" // a file removed (to the trash, or for good)
	PartMove   = "move"   // a file or folder moved or renamed
	PartMkdir  = "mkdir"  // a folder made
	PartRmdir  = "rmdir"  // an empty folder removed (to the trash)
)

// A ChangePart is one file a change touched.
type ChangePart struct {
	Op   string `json:"op" jsonschema:"create, edit, delete, move, mkdir or rmdir"`
	Path string `json:"path" jsonschema:"the vault-relative path (before a move)"`
	To   string `json:"to,omitempty" jsonschema:"a move's destination"`
	// Before names the bytes the file had before (the record keeps them),
	// After is the SHA-256 of the bytes it was given; each "" where the
	// file had none.
	Before string `json:"before,omitempty" jsonschema:"the SHA-256 of the file's bytes before the change (the record keeps them)"`
	After  string `json:"after,omitempty" jsonschema:"the SHA-256 of the file's bytes after the change"`
	// Trash is where a delete put the file, when the server did.
	Trash string `json:"trash,omitempty" jsonschema:"where a delete put the file in the vault's trash"`
	Size  int    `json:"size,omitempty" jsonschema:"bytes before the change"`
}

// ChangeQuery chooses changes of the record: each field set narrows it.
type ChangeQuery struct {
	Path, Folder, Tool, Client string
	Since, Until               time.Time
	Limit                      int
	// Cursor continues a list (ChangeList.Next).
	Cursor string
}

// ChangeList is a page of changes, newest first.
type ChangeList struct {
	Changes []VaultChange `json:"changes" jsonschema:"the changes, newest first"`
	Next    string        `json:"next_cursor,omitempty" jsonschema:"pass as cursor for older changes; absent at the end"`
	// Unreadable counts entries of the record that could not be read.
	Unreadable int `json:"unreadable,omitempty" jsonschema:"entries of the record that are damaged and were skipped"`
}

// ChangeDetail is one change with what each part did, as a diff.
type ChangeDetail struct {
	VaultChange
	Diffs []PartDiff `json:"diffs" jsonschema:"for each part that changed a note's text: a unified diff"`
}

// PartDiff is one part's text change.
type PartDiff struct {
	Path string `json:"path" jsonschema:"the note"`
	// Diff is unified, from the bytes before to those after; empty when
	// the bytes after are no longer known (the note changed since).
	Diff string `json:"diff,omitempty" jsonschema:"a unified diff from before to after"`
	Note string `json:"note,omitempty" jsonschema:"why there is no diff, when there is none"`
}

// TimeArg reads a time argument given as RFC 3339, or as a day (its
// start, or with end its last instant) in the local time zone; zero for
// "".
func TimeArg(v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	day, err := time.ParseInLocation(time.DateOnly, v, time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be a time as RFC 3339 (2026-11-28T09:00:00Z) or a day (2026-11-28)")
	}
	if end {
		day = day.AddDate(0, 0, 1).Add(-time.Nanosecond)
	}
	return day, nil
}

// UndoRequest says which changes an undo reverts: one by its id, or the
// last of one client's.
type UndoRequest struct {
	ID string
	// Client and Last: the client's Last changes, newest first.
	Client string
	Last   int
	// DryRun answers what the undo would do, and changes nothing.
	DryRun bool
}

// Undone is what an undo did (or, on a dry run, would do).
type Undone struct {
	// Undone are the changes reverted, newest first.
	Undone []string `json:"undone" jsonschema:"the ids of the changes reverted, newest first"`
	// Change is the undo's own change in the record, which can be undone
	// in turn (a redo).
	Change string     `json:"change,omitempty" jsonschema:"the id of the change this undo made; undo it to redo what was undone"`
	DryRun bool       `json:"dry_run,omitempty" jsonschema:"true when nothing was changed: the steps are what the undo would do"`
	Steps  []UndoStep `json:"steps" jsonschema:"what was done to each file, in order"`
}

// UndoStep is one thing an undo did to a file.
type UndoStep struct {
	// Op: "restore" (bytes put back), "trash" (a created file to the
	// trash), "move" (moved back from To), "rmdir" (a folder the change
	// made, removed), "mkdir" (a folder it removed, back).
	Op   string `json:"op" jsonschema:"restore, trash, move, rmdir or mkdir"`
	Path string `json:"path" jsonschema:"the file or folder"`
	From string `json:"from,omitempty" jsonschema:"where a move back took it from"`
	// Merged is set when the note had changed since: only the change's
	// own lines were reversed, and the later ones kept.
	Merged bool   `json:"merged,omitempty" jsonschema:"the note was changed since: only this change's lines were reversed, later edits were kept"`
	Note   string `json:"note,omitempty" jsonschema:"what else to know (a folder kept because it is not empty)"`
}

// UndoConflict is a file an undo cannot revert without losing later work.
type UndoConflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Diff is the later work the undo would overwrite: from the file as
	// the change left it to the file now.
	Diff string `json:"diff,omitempty"`
}
