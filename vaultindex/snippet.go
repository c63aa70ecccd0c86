package vaultindex

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// words are the folded words a snippet marks: every word of the query's
// positive alternatives.
func (q query) words() map[string]bool {
	out := map[string]bool{}
	for _, c := range q.clauses {
		if c.neg {
			continue
		}
		for _, a := range c.alts {
			for _, w := range a.words {
				out[w] = true
			}
		}
	}
	return out
}

// wordMatches returns the byte ranges of line's tokens that are words.
func wordMatches(line string, words map[string]bool) [][2]int {
	var out [][2]int
	tokenize(line, true, func(t *token) {
		if words[string(t.term)] {
			out = append(out, [2]int{t.start, t.end})
		}
	})
	return out
}

// Snippet bounds. A hit ranked below fullSnippets shows one line: on the
// Help vault's questions a result with three took about 650 bytes of the
// answer, and the notes below the first three are there to be noticed,
// not read.
const (
	maxSnippets    = 3
	fullSnippets   = 3
	snippetContext = 100 // bytes kept on each side of the first match
)

// snippets picks up to most lines with the most distinct matches
// (earliest first among equals), from line `from` on when any there
// match, and marks the matches.
func snippets(data []byte, from, most int, find func(string) [][2]int) []note.Snippet {
	type cand struct {
		line  int
		text  string
		marks [][2]int
		score int
	}
	var cands []cand
	scan := func(start int) {
		ln := 0
		for off := 0; off <= len(data); {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				end = len(data) - off
			}
			ln++
			line := strings.TrimSuffix(string(data[off:off+end]), "\r")
			off += end + 1
			if ln < start {
				continue
			}
			if m := find(line); len(m) > 0 {
				distinct := map[string]bool{}
				for _, r := range m {
					distinct[strings.ToLower(line[r[0]:r[1]])] = true
				}
				cands = append(cands, cand{ln, line, m, len(distinct)})
			}
		}
	}
	scan(from)
	if len(cands) == 0 && from > 1 {
		scan(1) // only the frontmatter matched
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	cands = cands[:min(len(cands), most)]
	sort.Slice(cands, func(a, b int) bool { return cands[a].line < cands[b].line })
	out := make([]note.Snippet, 0, len(cands))
	for _, c := range cands {
		out = append(out, note.Snippet{Line: c.line, Text: mark(c.text, c.marks)})
	}
	return out
}

// mark wraps the ranges in <mark></mark>, keeping about snippetContext
// bytes around them, cut at rune boundaries.
func mark(line string, ranges [][2]int) string {
	lo := max(0, ranges[0][0]-snippetContext)
	hi := min(len(line), ranges[0][1]+snippetContext)
	for _, r := range ranges[1:] {
		if r[1] <= hi+snippetContext {
			hi = min(len(line), max(hi, r[1]+20))
		}
	}
	for lo > 0 && !isRuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !isRuneStart(line[hi]) {
		hi++
	}
	var b strings.Builder
	if lo > 0 {
		b.WriteString("…")
	}
	at := lo
	for _, r := range ranges {
		if r[0] < at || r[1] > hi {
			continue
		}
		b.WriteString(line[at:r[0]])
		b.WriteString("<mark>")
		b.WriteString(line[r[0]:r[1]])
		b.WriteString("</mark>")
		at = r[1]
	}
	b.WriteString(line[at:hi])
	if hi < len(line) {
		b.WriteString("…")
	}
	return b.String()
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

// Highlight marks, in one line of a note, the words of a text-mode query
// the way search snippets do; for search answers that come with lines but
// no marks (the Obsidian CLI's). A line without them is returned as it is.
func Highlight(query, line string) string {
	q, err := parseQuery(query)
	if err != nil {
		return line
	}
	m := wordMatches(line, q.words())
	if len(m) == 0 {
		return line
	}
	return mark(line, m)
}

// regexSnippets shows the lines where the first matches start, each match
// marked up to the end of its first line: a pattern may span lines.
func regexSnippets(data []byte, re *regexp.Regexp) []note.Snippet {
	lines := metadata.LinesOf(data)
	var out []note.Snippet
	byLine := map[int]int{} // line → index in out
	var marks [][][2]int
	for _, m := range re.FindAllIndex(data, 200) {
		if m[1] == m[0] {
			continue
		}
		ln := lines.Of(m[0])
		from := lines.Start(ln)
		end := bytes.IndexByte(data[from:], '\n')
		if end < 0 {
			end = len(data) - from
		}
		line := strings.TrimSuffix(string(data[from:from+end]), "\r")
		i, ok := byLine[ln]
		if !ok {
			if len(out) == maxSnippets {
				break
			}
			i = len(out)
			byLine[ln] = i
			out = append(out, note.Snippet{Line: ln, Text: line})
			marks = append(marks, nil)
		}
		marks[i] = append(marks[i], [2]int{m[0] - from, min(m[1]-from, len(line))})
	}
	for i := range out {
		out[i].Text = mark(out[i].Text, marks[i])
	}
	if out == nil {
		out = []note.Snippet{}
	}
	return out
}
