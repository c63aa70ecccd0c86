package note

import (
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// The daily note operations.
const (
	DailyRead    = "read"
	DailyAppend  = "append"
	DailyPrepend = "prepend"
)

// The periods a periodic note covers.
const (
	Day     = "day"
	Week    = "week"
	Month   = "month"
	Quarter = "quarter"
	Year    = "year"
)

// DailyRequest is one operation on the note of the period (by default the
// day) that holds Date.
type DailyRequest struct {
	Date    time.Time
	Period  string
	Op      string
	Content string
	Inline  bool
}

// Daily reports an operation on a daily note.
type Daily struct {
	Path    string `json:"path" jsonschema:"vault-relative path of the note"`
	Date    string `json:"date" jsonschema:"its date, YYYY-MM-DD: for a week, month, quarter or year, its first day"`
	Period  string `json:"period,omitempty" jsonschema:"week, month, quarter or year; absent for a day"`
	Created bool   `json:"created,omitempty" jsonschema:"true when the note was created (from the daily notes template) by this call"`
	Content string `json:"content,omitempty" jsonschema:"read: the note's exact content"`
	ETag    string `json:"etag,omitempty" jsonschema:"the note's version (after the write); absent when the app wrote it"`
	Bytes   int    `json:"bytes,omitempty" jsonschema:"append and prepend: bytes of content added"`
}

// DailyOf is the read of the daily note for date at p, given what reading
// it gave: its content, or FILE_NOT_FOUND saying where it would be.
func DailyOf(date, p string, c Content, err error) (Daily, error) {
	if e := errors.From(err); e != nil && e.Kind == errors.FileNotFound {
		return Daily{}, NoDaily(date, p)
	}
	if err != nil {
		return Daily{}, err
	}
	return Daily{Path: p, Date: date, Content: c.Content, ETag: ETag([]byte(c.Content))}, nil
}

// NoDaily is the FILE_NOT_FOUND error for a day without a daily note,
// which would be at p.
func NoDaily(date, p string) *errors.Error {
	return errors.E(errors.FileNotFound, "there is no daily note for %s yet (it would be %s)", date, p).
		With("path", p).WithHint("Append or prepend to it to create it from the daily notes template.")
}
