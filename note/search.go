package note

// SearchRequest is one search: Query in Mode ("text" or "regex"), within
// Folder when set, results Offset..Offset+Limit of the ranking.
type SearchRequest struct {
	Query  string
	Mode   string
	Folder string
	Offset int
	Limit  int
}

// The search modes.
const (
	SearchText  = "text"
	SearchRegex = "regex"
)

// SearchResult is one page of a ranking.
type SearchResult struct {
	Total int   `json:"total" jsonschema:"how many notes match in all"`
	Hits  []Hit `json:"results" jsonschema:"this page of the matching notes, best first"`
	// Relaxed is set when no note had every word, so notes with some of
	// them are ranked instead.
	Relaxed bool `json:"relaxed,omitempty" jsonschema:"true when no note has every word of the query: these notes have some of them, best first"`
	// Partial is set when the index was still being built when the
	// search ran out of patience: only the notes indexed so far were
	// searched.
	Partial *Partial `json:"partial,omitempty" jsonschema:"set when the vault's index was still being built: only indexed of notes were searched; ask again for all"`
	// NextCursor and Truncated are set by the tool, which pages and bounds
	// every answer.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor to get the next page; absent on the last page"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"true when this page was cut short to keep the answer small; next_cursor continues it"`
}

// Partial says how much of the vault a search covered.
type Partial struct {
	Indexed int    `json:"indexed" jsonschema:"notes searched"`
	Notes   int    `json:"notes" jsonschema:"notes in the vault"`
	Note    string `json:"note" jsonschema:"what to do about it"`
}

// Hit is one matching note.
type Hit struct {
	Path  string  `json:"path" jsonschema:"vault-relative path of the note"`
	Score float64 `json:"score" jsonschema:"relevance (higher is better; comparable within one search only)"`
	// Matched names the fields a word matched in: title, alias, heading,
	// tag, path, body.
	Matched  []string  `json:"matched_in,omitempty" jsonschema:"where the words matched: title, alias, heading, tag, path, body"`
	Snippets []Snippet `json:"snippets" jsonschema:"up to 3 matching lines, the matches wrapped in <mark></mark>"`
}

// Snippet is one line of a note around a match.
type Snippet struct {
	Line int    `json:"line" jsonschema:"1-based line number"`
	Text string `json:"text" jsonschema:"the line (cut to about 200 characters around the match), matches wrapped in <mark></mark>"`
}
