package tools

import (
	"context"
	stderrors "errors"
	"regexp"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/dataview"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// dataviewMessage is a query's failure as Dataview shows it in a note.
func dataviewMessage(err error) string {
	var pe *dataview.ParseError
	var qe *dataview.QueryError
	switch {
	case stderrors.As(err, &pe):
		return "the query does not parse: " + pe.Error()
	case stderrors.As(err, &qe):
		return qe.Msg
	}
	return err.Error()
}

// maxDataviewQueries bounds the queries one read evaluates.
const maxDataviewQueries = 64

var (
	dataviewFence = regexp.MustCompile("^\\s*(```+|~~~+)\\s*(dataviewjs|dataview)\\s*$")
	inlineQuery   = regexp.MustCompile("`=([^`]+)`")
)

// renderDataview shows text as Obsidian shows it with Dataview: each
// dataview block replaced by the Markdown of its answer under a comment
// that keeps the query, each inline `= query` by its value; dataviewjs
// blocks stay as written, with a line saying they were not run. It
// returns the text and how many queries it evaluated.
func renderDataview(ctx context.Context, v Vault, origin, text string) (string, int) {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	n := 0
	ask := func(q note.DataviewQuery) (string, bool) {
		if n >= maxDataviewQueries {
			return "", false
		}
		n++
		q.Origin = note.Locator{Path: origin}
		res, err := v.Dataview.QueryDataview(ctx, q)
		if err != nil {
			return "> Dataview: " + strings.ReplaceAll(dataviewMessage(err), "\n", " ") + "\n", true
		}
		if q.Inline {
			return res.Markdown, true
		}
		if res.Type == "calendar" {
			return "> Dataview: a calendar has no Markdown (obsidian_query_dataview answers its days)\n", true
		}
		return res.Markdown, true
	}
	inFence := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if inFence != "" {
			b.WriteString(line)
			if strings.HasPrefix(strings.TrimSpace(line), inFence) {
				inFence = ""
			}
			continue
		}
		if m := dataviewFence.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), m[1]) {
				j++
			}
			block := strings.Join(lines[i:min(j+1, len(lines))], "")
			query := strings.Join(lines[i+1:min(j, len(lines))], "")
			if m[2] == "dataviewjs" {
				b.WriteString(block)
				if !strings.HasSuffix(block, "\n") {
					b.WriteString("\n")
				}
				b.WriteString("%% dataviewjs: not run (a script runs JavaScript in Obsidian) %%\n")
			} else if out, ok := ask(note.DataviewQuery{Query: query}); ok {
				b.WriteString("%% dataview\n" + strings.TrimRight(query, "\r\n") + "\n%%\n" + out)
			} else {
				b.WriteString(block)
			}
			i = j
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = t[:3]
			b.WriteString(line)
			continue
		}
		b.WriteString(inlineQuery.ReplaceAllStringFunc(line, func(span string) string {
			q := strings.TrimSpace(span[2 : len(span)-1])
			if strings.HasPrefix(span, "`=") && q != "" {
				if out, ok := ask(note.DataviewQuery{Query: q, Inline: true}); ok {
					return strings.TrimRight(out, "\n")
				}
			}
			return span
		}))
	}
	return b.String(), n
}
