// Package tools defines obsidian-mcp's MCP tools: their names, argument
// schemas, validation, descriptions, annotations and results. Each tool has a
// file of its own holding its arguments struct, constructor and handler, with
// its test beside it. All is the single registry that the server, the README
// generator and the invariant tests read.
//
// Tools talk to a Vault (one interface per capability) at the level of
// vault operations; they know
// nothing of the Obsidian CLI or the file system.
package tools

import (
	"context"

	"github.com/obsidian-mcp/obsidian-mcp/bases"
	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

// Notes performs the operations on one note: obsidiancli.Backend over the
// Obsidian CLI, the native engine on the vault folder, and the router
// between them. Every implementation keeps one contract: names resolve
// like wikilinks and refuse ambiguity, creates never clobber, content is kept
// byte for byte, and failures are *errors.Error values of the documented kinds.
type Notes interface {
	Create(ctx context.Context, req note.CreateRequest) (note.Created, error)
	Read(ctx context.Context, loc note.Locator) (note.Content, error)
	Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error)
	Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error)
	Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error)
	Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error)
	Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error)
	Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error)
	FileInfo(ctx context.Context, loc note.Locator) (note.Info, error)
}

// Searcher ranks the vault's notes for a query.
type Searcher interface {
	Search(ctx context.Context, req note.SearchRequest) (note.SearchResult, error)
}

// Lister lists the vault's files and folders.
type Lister interface {
	List(ctx context.Context, req note.ListRequest) (note.Listing, error)
}

// LinkGraph answers questions about the links between notes.
type LinkGraph interface {
	Links(ctx context.Context, loc note.Locator) (note.Links, error)
	Backlinks(ctx context.Context, loc note.Locator) (note.Backlinks, error)
	Unresolved(ctx context.Context) ([]note.Unresolved, error)
	Orphans(ctx context.Context) ([]string, error)
}

// Metadata answers questions about tags and properties across the vault.
type Metadata interface {
	Tags(ctx context.Context) ([]note.TagCount, error)
	Tagged(ctx context.Context, tag string) ([]string, error)
	Properties(ctx context.Context) ([]note.PropertyStat, error)
}

// Editor changes a note by a function of its exact content, atomically.
// With ifMatch, a note of another version is refused with
// REVISION_CONFLICT and nothing is written; without it, a change another
// program makes meanwhile is never lost: change is applied again to the
// note as it now is. Patch, replace, properties and tags are all changes,
// computed by the tools, so every backend edits the same bytes the same way.
type Editor interface {
	Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error)
}

// DailyNotes reads and adds to the daily note of a date, created when
// missing with the vault's Daily notes settings (folder, format, template).
// TagRenamer renames a tag in many notes as one edit that a crash cannot
// leave half done: the native engine journals it, and the next start
// completes it. It is optional; without it (no vault folder on this
// machine), or when it answers ErrNoBulk, a tag is renamed note by note.
// The native engine implements it; the server reaches it through the
// router and the policy guards (internal/backend).
type TagRenamer interface {
	RenameTag(ctx context.Context, from, to string, paths []string) (note.TagRename, error)
}

// HeadingRenamer carries out a heading's rename (note.HeadingPlan) as one
// edit that a crash cannot leave half done, as TagRenamer does a tag's.
// It is optional; without it, or when it answers ErrNoBulk, the notes are
// changed one by one.
type HeadingRenamer interface {
	RenameHeading(ctx context.Context, plan note.HeadingPlan) (note.HeadingRenamed, error)
}

// Folders creates, moves (links into them rewritten) and deletes the
// vault's folders.
type Folders interface {
	CreateFolder(ctx context.Context, folder string) (note.FolderChange, error)
	MoveFolder(ctx context.Context, folder, to string) (note.FolderChange, error)
	DeleteFolder(ctx context.Context, folder string) (note.FolderChange, error)
}

// ErrNoBulk is a TagRenamer's answer when it cannot do the edit as one:
// the caller then edits note by note.
var ErrNoBulk = errors.New("no journaled vault-wide edits without the vault folder")

type DailyNotes interface {
	Daily(ctx context.Context, req note.DailyRequest) (note.Daily, error)
}

// TaskLister finds the vault's tasks (checklist items) that a query
// selects, in to-do order (tasks.Less).
type TaskLister interface {
	Tasks(ctx context.Context, q tasks.Query) ([]tasks.Task, error)
	// TaskSettings are the Tasks plugin's settings, its defaults when
	// it is off.
	TaskSettings(ctx context.Context) (tasks.Settings, error)
}

// TemplateLister lists the templates of the vault's template folder (the
// core Templates plugin's), with the variables each fills in.
type TemplateLister interface {
	Templates(ctx context.Context) (note.Templates, error)
}

// BaseQuerier answers a view of an Obsidian base (.base): the rows its
// filters select, with its columns' values, sorted and limited as it says.
type BaseQuerier interface {
	QueryBase(ctx context.Context, loc note.Locator, view string) (bases.Result, error)
}

// DataviewQuerier answers Dataview queries (DQL) and inline
// expressions, as the Dataview plugin does.
type DataviewQuerier interface {
	QueryDataview(ctx context.Context, q note.DataviewQuery) (*dataview.Result, error)
}

// Commander lists and runs the app's commands. Only the app has them; a
// command acts on the whole vault, outside the folder policy.
type Commander interface {
	Commands(ctx context.Context, filter string) ([]note.Command, error)
	RunCommand(ctx context.Context, id string) (note.CommandRun, error)
}

// History is the change record, read: what the tools changed, newest
// first, and one change with its diffs.
type History interface {
	Changes(ctx context.Context, q note.ChangeQuery) (note.ChangeList, error)
	Change(ctx context.Context, id string) (note.ChangeDetail, error)
}

// Vault is what the tools work on: one small interface per capability, so
// that a backend, a test fake or a future transport provides each on its
// own. A note's outline, sections and properties need no interface of
// their own: the tools read them from the note's exact content.
type Vault struct {
	Notes  Notes
	Search Searcher
	Files  Lister
	Graph  LinkGraph
	Meta   Metadata
	Edit   Editor
	Daily  DailyNotes
	// Templates lists the vault's templates.
	Templates TemplateLister
	// Tasks finds the vault's tasks.
	Tasks TaskLister
	// Bases answers views of the vault's bases.
	Bases BaseQuerier
	// Dataview answers Dataview queries; nil without the vault folder.
	Dataview DataviewQuerier
	// Commands are the app's commands.
	Commands Commander
	// Ask confirms with the user what cannot be undone; nil when the
	// user cannot be asked.
	Ask Asker
	// Tags renames a tag across notes as one journaled edit; nil when
	// the backend cannot (see TagRenamer).
	Tags TagRenamer
	// Headings renames a heading, links following, as one journaled
	// edit; nil when the backend cannot (see HeadingRenamer).
	Headings HeadingRenamer
	// Folders changes the vault's folders.
	Folders Folders
	// History is the change record; nil when the server keeps none.
	History History
	// Undo reverts changes of the record; nil when none is kept.
	Undo Undoer
}

// VaultOf is the Vault of the capabilities b has (each field b does not
// implement stays nil): for a backend that serves everything it has
// itself, and for tests.
func VaultOf(b any) Vault {
	var v Vault
	v.Notes, _ = b.(Notes)
	v.Search, _ = b.(Searcher)
	v.Files, _ = b.(Lister)
	v.Graph, _ = b.(LinkGraph)
	v.Meta, _ = b.(Metadata)
	v.Edit, _ = b.(Editor)
	v.Daily, _ = b.(DailyNotes)
	v.Templates, _ = b.(TemplateLister)
	v.Tasks, _ = b.(TaskLister)
	v.Bases, _ = b.(BaseQuerier)
	v.Dataview, _ = b.(DataviewQuerier)
	v.Commands, _ = b.(Commander)
	v.Tags, _ = b.(TagRenamer)
	v.Headings, _ = b.(HeadingRenamer)
	v.Folders, _ = b.(Folders)
	v.History, _ = b.(History)
	v.Undo, _ = b.(Undoer)
	return v
}
