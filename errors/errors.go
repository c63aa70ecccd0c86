// Package errors is obsidian-mcp's error vocabulary: the JSON-RPC codes and
// stable errorCode strings a client receives, the typed Error that carries
// them from a backend to the wire, and From, which turns any error into one.
//
// It stands in for the standard library's errors package (Is, As, New, Join
// and Unwrap are re-exported) so that no file has to import two packages
// named errors. It does not decide how an Error is written to the client;
// the protocol core (internal/protocol) does, through JSONRPCError.
package errors

import (
	"context"
	stderrors "errors"
	"fmt"
	"io/fs"
	"strings"
)

// Is reports whether any error in err's tree matches target (std errors.Is).
func Is(err, target error) bool { return stderrors.Is(err, target) }

// As finds the first error in err's tree that matches target (std errors.As).
func As(err error, target any) bool { return stderrors.As(err, target) }

// New returns an error that formats as the given text (std errors.New).
func New(text string) error { return stderrors.New(text) }

// Join returns an error that wraps the given errors (std errors.Join).
func Join(errs ...error) error { return stderrors.Join(errs...) }

// Unwrap returns the result of calling err's Unwrap method (std errors.Unwrap).
func Unwrap(err error) error { return stderrors.Unwrap(err) }

// Code is a JSON-RPC error code. Our own codes live in -32000..-32019, the
// range MCP leaves to implementations; -32020..-32099 is reserved by MCP.
type Code int

// Kind is the stable, machine-readable errorCode sent in data.errorCode.
// Clients may switch on it; never rename one.
type Kind string

// The kinds, in the order the README's error table lists them.
const (
	InvalidParams    Kind = "INVALID_PARAMS"
	NotRunning       Kind = "OBSIDIAN_NOT_RUNNING"
	CLINotFound      Kind = "OBSIDIAN_CLI_NOT_FOUND"
	VaultNotFound    Kind = "VAULT_NOT_FOUND"
	FileNotFound     Kind = "FILE_NOT_FOUND"
	HeadingNotFound  Kind = "HEADING_NOT_FOUND"
	BlockNotFound    Kind = "BLOCK_NOT_FOUND"
	PropertyNotFound Kind = "PROPERTY_NOT_FOUND"
	TaskNotFound     Kind = "TASK_NOT_FOUND"
	ResourceNotFound Kind = "RESOURCE_NOT_FOUND"
	AmbiguousName    Kind = "AMBIGUOUS_NAME"
	PermissionDenied Kind = "PERMISSION_DENIED"
	Timeout          Kind = "TIMEOUT"
	FileExists       Kind = "FILE_EXISTS"
	RevisionConflict Kind = "REVISION_CONFLICT"
	DiskFull         Kind = "DISK_FULL"
	TooManyFiles     Kind = "TOO_MANY_OPEN_FILES"
	CLIError         Kind = "CLI_ERROR"
	Unsupported      Kind = "UNSUPPORTED"
	Cancelled        Kind = "CANCELLED"
	Internal         Kind = "INTERNAL_ERROR"
)

type kindInfo struct {
	code Code
	// when and action feed the README's error table.
	when, action string
}

// kinds is a constant table: it is never written after init.
var kinds = map[Kind]kindInfo{
	InvalidParams: {-32602, "The arguments failed validation: a missing or doubled locator (`path` and `name`), a wrong type, an empty name, an unknown argument, or an unsafe path (`..`, absolute, drive letter, NUL, backslash, control character). `data.fields` names each field.",
		"Fix the fields named in `data.fields`; the message says how."},
	NotRunning: {-32001, "The CLI answered that it cannot reach the Obsidian app (exit status 1, message on stderr).",
		"Start Obsidian (and open the vault), then retry. On Linux without a desktop session, set `DISPLAY`. Or give the vault folder (`--vault-path`) and `auto` serves the call from it."},
	CLINotFound: {-32001, "The `obsidian` executable could not be found or started.",
		"Install Obsidian ≥ 1.12, enable Settings → General → Command line interface, or pass `--obsidian-bin` / `OBSIDIAN_BIN` with the CLI's full path (on Windows `Obsidian.com`). Or give the vault folder (`--vault-path`) and `auto` works without the app."},
	VaultNotFound: {-32002, "The CLI answered `Vault not found.` for the configured vault, or the vault folder cannot be opened.",
		"Check `--vault` / `OBSIDIAN_VAULT`: it must be the vault's name as Obsidian lists it (its folder name), not a path. For `--vault-path`, give the vault's folder."},
	FileNotFound: {-32003, "The note does not exist (`Error: File \"…\" not found.` and equivalents).",
		"Check the path (exact, vault-relative, with extension) or use `name` to resolve it like a wikilink."},
	HeadingNotFound: {-32010, "The note exists, but no heading matches the one named (a section to read or edit). Nothing was changed; `data.heading` is the one asked for, `data.headings` the note's heading paths (the first 200; `data.headings_total` counts them all).",
		"Pick one of `data.headings` (a path such as \"Parent > Heading\" when names repeat), or set `create_if_missing` to add the heading."},
	BlockNotFound: {-32010, "The note exists, but no paragraph or list item carries the block id named. Nothing was changed; `data.block` is the id asked for, `data.blocks` the note's block ids.",
		"Pick one of `data.blocks`, or read the note to find the text; a block id ends its paragraph as ` ^id`."},
	PropertyNotFound: {-32010, "The note exists, but its frontmatter has no property of that name. Nothing was changed; `data.property` is the name asked for, `data.properties` the note's property names.",
		"Pick one of `data.properties` (names are case-sensitive), or set `create_if_missing` to add it."},
	TaskNotFound: {-32010, "The note exists, but no task stands at the line or carries the block id named. Nothing was changed; `data.line` or `data.block` is the place asked for, `data.tasks` the lines of the note's tasks (the first 200).",
		"List the note's tasks again (`obsidian_list_tasks`) and use the line it gives now, or the task's block id."},
	ResourceNotFound: {-32002, "`resources/read` names a resource that does not exist (no note at the URI's path, or a URI of no template of this server). `data.uri` is the URI asked for. The code is MCP's: -32002 up to revision 2025-11-25, and -32602 from 2026-07-28, which moved it to Invalid Params (SEP-2164); tool calls never answer with this kind.",
		"List the notes (`resources/list`, or `obsidian_list_files`) and read one of their URIs."},
	AmbiguousName: {-32004, "A `name` matches several notes. Nothing was changed; `data.candidates` lists every matching path.",
		"Call again with `path` set to one of `data.candidates`."},
	PermissionDenied: {-32005, "The operating system refused access (`EACCES`, `EPERM`, or \"permission denied\" in the CLI's answer), or the path leaves the vault through a symlink, or a write targets a hidden path such as `.obsidian/` or `.trash/`.",
		"Fix the file's or folder's permissions, or close the program that locks it; keep writes inside the vault's visible folders."},
	Timeout: {-32006, "The CLI did not answer within its timeout; its whole process group was stopped.",
		"Make sure Obsidian is responsive (no modal dialog; on macOS disable App Nap), then retry, or raise `--timeout`."},
	FileExists: {-32000, "The target already exists: create without `overwrite`, or a move/rename onto an existing note. Nothing was changed.",
		"Pass `overwrite: true` to replace it, or choose another name or destination."},
	RevisionConflict: {-32007, "A write's `if_match` names another version of the note than the current one: Obsidian, a sync client or another assistant changed it since it was read. Nothing was written; `data.etag` is the current version's.",
		"Read the note again (its etag too), check that the edit still makes sense, and retry with the new `if_match`."},
	DiskFull: {-32008, "The disk (or the user's quota) is full (`ENOSPC`, `EDQUOT`). Nothing was written; for a move, rename or tag rename that had begun, `data.failed` lists the notes not changed yet, and the server completes them at its next start or write.",
		"Free space on the vault's disk, then retry (or let the next write complete the edit)."},
	TooManyFiles: {-32009, "The process or the system ran out of file descriptors (`EMFILE`, `ENFILE`). As for DISK_FULL, `data.failed` lists the notes a vault-wide edit could not change yet; they are completed at the next start or write.",
		"Raise the open-file limit (`ulimit -n`) or close programs holding many files, then retry."},
	CLIError: {-32000, "Any other failure the CLI reported; the message is its first line with noise removed.",
		"Read the message; it is Obsidian's own."},
	Unsupported: {-32000, "The request cannot be carried out with this setup, e.g. content the CLI cannot carry losslessly while the vault folder is not reachable from this machine, or `open` with `--backend native`.",
		"Follow the hint; it names the setting that makes the request possible."},
	Cancelled: {-32800, "The client cancelled the request or the server is shutting down.",
		"Nothing to do; retry if the work is still wanted."},
	Internal: {-32603, "A bug in obsidian-mcp.",
		"Report it with the server's stderr log."},
}

// Resource reports whether err is the machine running out of something
// (DiskFull, TooManyFiles) rather than a fault of the request or a bug.
func Resource(err error) (Kind, bool) { return resourceKind(err) }

// Code returns the JSON-RPC code for k; unknown kinds are internal errors.
func (k Kind) Code() Code {
	if info, ok := kinds[k]; ok {
		return info.code
	}
	return kinds[Internal].code
}

// KindDoc describes one kind for documentation.
type KindDoc struct {
	Kind         Kind
	Code         Code
	When, Action string
}

// kindOrder is the README's order: validation, the Obsidian-specific codes,
// then the generic ones.
var kindOrder = []Kind{InvalidParams, NotRunning, CLINotFound, VaultNotFound, FileNotFound, AmbiguousName,
	HeadingNotFound, BlockNotFound, PropertyNotFound, TaskNotFound, ResourceNotFound, PermissionDenied, Timeout, FileExists, RevisionConflict, DiskFull, TooManyFiles, CLIError, Unsupported, Cancelled, Internal}

// Kinds lists every kind in documentation order.
func Kinds() []KindDoc {
	docs := make([]KindDoc, 0, len(kindOrder))
	for _, k := range kindOrder {
		info := kinds[k]
		docs = append(docs, KindDoc{Kind: k, Code: info.code, When: info.when, Action: info.action})
	}
	return docs
}

// Field names one invalid argument and says how to fix it.
type Field struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a failure the client is told about: its Kind picks the code, and
// Message and Hint are written for the model reading them. Cause is kept for
// logs and errors.Is, and never sent.
type Error struct {
	Kind    Kind
	Message string
	Hint    string
	// Fields lists invalid arguments (INVALID_PARAMS).
	Fields []Field
	// Candidates lists the notes an ambiguous name matched (AMBIGUOUS_NAME).
	Candidates []string
	// Details are further data members, e.g. "path".
	Details map[string]any
	Cause   error
	// code, when set, overrides the kind's code: where the protocol's
	// revision rules it (a missing resource is -32602 from 2026-07-28).
	code Code
}

// E builds an Error of kind k with a formatted message.
func E(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// InvalidFields is the INVALID_PARAMS error naming each bad argument.
// Fields sharing one message (path and name, for the locator rule) are
// named together rather than repeating it.
func InvalidFields(fields ...Field) *Error {
	var parts []string
	for i := 0; i < len(fields); {
		j, names := i, []string{}
		for ; j < len(fields) && fields[j].Message == fields[i].Message; j++ {
			names = append(names, "`"+fields[j].Field+"`")
		}
		parts = append(parts, strings.Join(names, " and ")+": "+fields[i].Message)
		i = j
	}
	e := E(InvalidParams, "invalid arguments: %s", strings.Join(parts, "; "))
	e.Fields = fields
	return e
}

// WithHint sets the hint and returns e.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// WithCause records the underlying error and returns e.
func (e *Error) WithCause(err error) *Error { e.Cause = err; return e }

// With adds a data member and returns e.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// Error returns the message the client sees; the cause stays in logs.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause so errors.Is sees through an Error.
func (e *Error) Unwrap() error { return e.Cause }

// Code is the JSON-RPC code for e.
func (e *Error) Code() Code {
	if e.code != 0 {
		return e.code
	}
	return e.Kind.Code()
}

// WithCode answers e with code c in place of its kind's, and returns e.
func (e *Error) WithCode(c Code) *Error { e.code = c; return e }

// JSONRPCError is the error object a request that failed with e is
// answered with: e's code, message and data.
func (e *Error) JSONRPCError() (code int, message string, data any) {
	return int(e.Code()), e.Message, e.Data()
}

// Data is the JSON-RPC error's data member.
func (e *Error) Data() map[string]any {
	data := make(map[string]any, 4+len(e.Details))
	for k, v := range e.Details {
		data[k] = v
	}
	data["errorCode"] = string(e.Kind)
	hint := e.Hint
	if hint == "" {
		hint = kinds[e.Kind].action
	}
	data["hint"] = hint
	if len(e.Fields) > 0 {
		data["fields"] = e.Fields
	}
	if e.Candidates != nil {
		data["candidates"] = e.Candidates
	}
	return data
}

// From turns any error into an Error. Errors that are already typed pass
// through; context and file-system errors get their kind; anything else is
// an internal error, because a plain Go error reaching the client is a bug.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if As(err, &e) {
		return e
	}
	switch {
	case Is(err, context.DeadlineExceeded):
		return E(Timeout, "the operation timed out").WithCause(err)
	case Is(err, context.Canceled):
		return E(Cancelled, "the request was cancelled").WithCause(err)
	case Is(err, fs.ErrPermission):
		return E(PermissionDenied, "%v", err).WithCause(err)
	case Is(err, fs.ErrNotExist):
		return E(FileNotFound, "%v", err).WithCause(err)
	case Is(err, fs.ErrExist):
		return E(FileExists, "%v", err).WithCause(err)
	}
	if k, ok := Resource(err); ok {
		return E(k, "%v", err).WithCause(err).WithHint(kinds[k].action)
	}
	return E(Internal, "internal error: %v", err).WithCause(err)
}
