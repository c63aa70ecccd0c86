package tools

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// maxAnswer bounds the JSON of the items one answer carries: about 25,000
// tokens, so that no call floods the model's context (a peer answered a
// common word with 8.3 MB). A longer page is cut, and says how to go on.
const maxAnswer = 90_000

// Page bounds for the listing tools.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// paging is embedded in the arguments of every tool that pages. Its
// fields carry no description: the server instructions say once how every
// listing pages, and tools/list does not repeat it for each.
type paging struct {
	Limit  int    `json:"limit,omitempty" validate:"omitempty,min=1,max=100"`
	Cursor string `json:"cursor,omitempty" validate:"omitempty,max=200"`
}

func (p paging) limit() int { return p.limitOr(defaultLimit) }

// limitOr is the limit asked for, or d.
func (p paging) limitOr(d int) int {
	if p.Limit == 0 {
		return d
	}
	return p.Limit
}

// cursor is what an opaque cursor carries: where the next page starts
// (and, for a read, where the part read ends), and a digest of the call it
// continues, so that a cursor given to another query is refused instead of
// silently paging through the wrong results.
type cursor struct {
	Offset int    `json:"o"`
	End    int    `json:"e,omitempty"`
	Key    string `json:"k"`
}

func (c cursor) encode() string {
	raw, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// decodeCursor reads s, a cursor of the call whose key is k.
func decodeCursor(s, k string) (cursor, bool) {
	var c cursor
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Key != k || c.Offset < 0 {
		return cursor{}, false
	}
	return c, true
}

// key digests what a cursor must continue: the tool and its arguments but
// the paging ones.
func key(tool string, parts ...string) string {
	h := fnv.New64a()
	h.Write([]byte(tool))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// offset decodes p's cursor for the call whose key is k.
func (p paging) offset(k string) (int, error) {
	if p.Cursor == "" {
		return 0, nil
	}
	c, ok := decodeCursor(p.Cursor, k)
	if !ok {
		return 0, errors.InvalidFields(errors.Field{Field: "cursor",
			Message: "is not a cursor from a previous page of this same call: pass next_cursor unchanged, with the other arguments as they were, or leave cursor out to start again"})
	}
	return c.Offset, nil
}

func nextCursor(k string, offset int) string { return cursor{Offset: offset, Key: k}.encode() }

// fit returns how many of items fit the answer's budget (at least one, so
// that every call makes progress).
func fit[T any](items []T) int {
	size := 0
	for i, it := range items {
		b, _ := json.Marshal(it)
		size += len(b) + 1
		if size > maxAnswer && i > 0 {
			return i
		}
	}
	return len(items)
}

// Page is one page of a listing tool's items.
type Page[T any] struct {
	Total      int    `json:"total" jsonschema:"items in all"`
	Items      []T    `json:"items" jsonschema:"this page"`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"true when the page was cut short to keep the answer under about 25,000 tokens; next_cursor continues it"`
}

// pageOf cuts all into the page p asks for.
func pageOf[T any](all []T, p paging, k string) (Page[T], error) {
	off, err := p.offset(k)
	if err != nil {
		return Page[T]{}, err
	}
	pg := Page[T]{Total: len(all), Items: []T{}}
	if off >= len(all) {
		return pg, nil
	}
	items := all[off:min(len(all), off+p.limit())]
	n := fit(items)
	pg.Items = append(pg.Items, items[:n]...)
	pg.Truncated = n < len(items)
	if off+n < len(all) {
		pg.NextCursor = nextCursor(k, off+n)
	}
	return pg, nil
}

// pageAll pages the whole list fetch returns, checking the cursor first so
// that a bad one costs no backend call.
func pageAll[T any](p paging, k string, fetch func() ([]T, error)) (Page[T], error) {
	if _, err := p.offset(k); err != nil {
		return Page[T]{}, err
	}
	all, err := fetch()
	if err != nil {
		return Page[T]{}, err
	}
	return pageOf(all, p, k)
}
