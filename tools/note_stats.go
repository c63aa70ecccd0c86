package tools

import (
	"context"
	"unicode"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/tasks"
)

type noteStatsArgs struct {
	locator
}

type noteStats struct {
	Path  string `json:"path" jsonschema:"vault-relative path of the note"`
	Words int    `json:"words" jsonschema:"words of the body (frontmatter left out), each Chinese, Japanese or Korean character one word, as Obsidian counts them"`
	// Characters counts as Obsidian's status bar does: every character
	// of the body, spaces included.
	Characters     int    `json:"characters" jsonschema:"characters of the body, spaces included"`
	ReadingMinutes int    `json:"reading_minutes" jsonschema:"words at 238 a minute, rounded up; 0 for an empty note"`
	Headings       int    `json:"headings"`
	Links          int    `json:"links" jsonschema:"links and embeds to other notes and files, wikilinks and Markdown links"`
	TasksOpen      int    `json:"tasks_open" jsonschema:"tasks not done or cancelled"`
	TasksDone      int    `json:"tasks_done"`
	ETag           string `json:"etag" jsonschema:"hash of the note's content"`
}

// wordsPerMinute is an adult's average silent reading rate of non-fiction
// (Brysbaert, 2019: 238).
const wordsPerMinute = 238

var noteStatsTool = spec[noteStatsArgs, noteStats]{
	name:        "obsidian_note_stats",
	toolset:     "read",
	title:       "Note statistics",
	description: "How long a note is without reading it: words, characters, reading time, headings, links and open/done tasks.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a noteStatsArgs) (noteStats, error) {
		c, err := readText(ctx, v, a.note())
		if err != nil {
			return noteStats{}, err
		}
		content := []byte(c.Content)
		body := content[note.FrontmatterEnd(content):]
		md := metadata.Parse(content)
		s := noteStats{Path: c.Path, Words: countWords(body), Characters: utf8.RuneCount(body),
			Headings: len(md.Headings), Links: len(md.Links), ETag: note.ETag(content)}
		s.ReadingMinutes = (s.Words + wordsPerMinute - 1) / wordsPerMinute
		for _, t := range tasks.Parse(c.Path, content) {
			switch t.Status {
			case "done":
				s.TasksDone++
			case "cancelled":
			default:
				s.TasksOpen++
			}
		}
		return s, nil
	},
}

// countWords counts runs of letters, digits, apostrophes and joiners
// within a word as one word each, and each Han, Hiragana, Katakana or
// Hangul character as a word of its own (those scripts put no spaces
// between words).
func countWords(text []byte) int {
	n, in := 0, false
	for _, r := range string(text) {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if !in {
				n++
			}
			in = true
		case in && (r == '\'' || r == '’' || r == '-' || r == '_'):
			// Within a word: don't, well-known.
		default:
			in = false
		}
	}
	return n
}
