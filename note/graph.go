package note

import "time"

// OutLink is one link from a note.
type OutLink struct {
	Target  string `json:"target" jsonschema:"the link as written, without #subpath or alias"`
	Subpath string `json:"subpath,omitempty" jsonschema:"#Heading or #^block, when the link has one"`
	// Path is where the link leads; "" when it is unresolved.
	Path     string `json:"path,omitempty" jsonschema:"vault-relative path of the note or file it leads to; absent when unresolved"`
	Resolved bool   `json:"resolved" jsonschema:"false when no file in the vault matches (a link to a note not written yet)"`
	Line     int    `json:"line" jsonschema:"1-based line of the link (0 when the backend cannot tell)"`
	Embed    bool   `json:"embed,omitempty" jsonschema:"true for an embed (![[…]])"`
}

// Links are a note's outgoing links.
type Links struct {
	Path  string    `json:"path" jsonschema:"the note"`
	Links []OutLink `json:"links" jsonschema:"every internal link in order (links inside code are not links)"`
}

// LinkRef is a place that links somewhere.
type LinkRef struct {
	Path string `json:"path" jsonschema:"vault-relative path of the linking note"`
	Line int    `json:"line" jsonschema:"1-based line of the link (0 when the backend cannot tell)"`
}

// Backlinks are the places that link to a note.
type Backlinks struct {
	Path      string    `json:"path" jsonschema:"the note"`
	Total     int       `json:"total" jsonschema:"how many links point here in all"`
	Backlinks []LinkRef `json:"backlinks" jsonschema:"this page of the linking places, by path then line"`
}

// Unresolved is a link target no file matches, and where it is used.
type Unresolved struct {
	Target  string    `json:"target" jsonschema:"the link as written (lower-case variants merged)"`
	Count   int       `json:"count" jsonschema:"how many links use it"`
	Sources []LinkRef `json:"sources" jsonschema:"where it is linked from (at most 10)"`
}

// TagCount is a tag and how many notes carry it.
type TagCount struct {
	Tag   string `json:"tag" jsonschema:"the tag without #, as first written; nested tags as parent/child"`
	Count int    `json:"count" jsonschema:"notes carrying it, nested tags below it included"`
}

// PropertyStat describes one property name across the vault.
type PropertyStat struct {
	Name  string   `json:"name" jsonschema:"the property name, as first written"`
	Count int      `json:"count" jsonschema:"notes that have it"`
	Types []string `json:"types" jsonschema:"the value types seen: text, number, checkbox, date, datetime, list, object, null"`
}

// ListRequest asks for a folder's entries.
type ListRequest struct {
	Folder    string
	Recursive bool
	Glob      string
	Ext       string
	Sort      string // name or modified
	// Unused keeps only attachments (IsAttachment) that no note or
	// canvas links to or embeds.
	Unused bool
	Offset int
	Limit  int
}

// Entry is a file or folder in a listing.
type Entry struct {
	Path     string    `json:"path" jsonschema:"vault-relative path"`
	Type     string    `json:"type" jsonschema:"file or folder"`
	Size     int64     `json:"size,omitempty" jsonschema:"bytes, for files"`
	Modified time.Time `json:"modified,omitzero" jsonschema:"last modification time, RFC 3339, UTC"`
}

// Listing is one page of a listing.
type Listing struct {
	Total   int     `json:"total" jsonschema:"entries in all"`
	Entries []Entry `json:"entries" jsonschema:"this page of entries"`
}
