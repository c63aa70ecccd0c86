package obsidiantest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// The read-side commands. docs/cli.md gives their parameters and, for
// search, search:context and backlinks, their JSON shapes; the shapes of
// unresolved, tags and a vault-wide properties listing are not documented
// anywhere we could find, so the fake prints the plainest JSON each could
// have ({"link","count"}, {"tag":"#x","count"}, {"name","type","count"})
// and obsidiancli parses them leniently. What the app finds is the
// engine's answer: Obsidian's own search ranks differently, which is why
// the CLI backend reports the app's order, not scores.

// readSide answers the read-side command c into out, and reports whether
// c was one (false: the caller answers it).
func (v *vault) readSide(c call, out *strings.Builder) bool {
	answer, ok := map[string]func(context.Context, call, *strings.Builder) bool{
		"files":          v.listFiles,
		"folders":        v.listFolders,
		"search":         v.searchCommand,
		"search:context": v.searchCommand,
		"backlinks":      v.backlinks,
		"unresolved":     v.unresolved,
		"orphans":        v.orphans,
		"tags":           v.tags,
		"properties":     v.properties,
	}[c.command]
	return ok && answer(context.Background(), c, out)
}

func (v *vault) listFiles(_ context.Context, c call, out *strings.Builder) bool {
	folder, ext := strings.Trim(c.params["folder"], "/"), strings.TrimPrefix(c.params["ext"], ".")
	for _, f := range v.files() {
		if (folder == "" || strings.HasPrefix(f, folder+"/")) && (ext == "" || strings.EqualFold(note.Ext(f), ext)) {
			out.WriteString(f + "\n")
		}
	}
	return true
}

func (v *vault) listFolders(_ context.Context, _ call, out *strings.Builder) bool {
	out.WriteString("/\n")
	v.files() // refreshes the engine's listing
	for _, f := range v.eng.Folders() {
		out.WriteString(f + "\n")
	}
	return true
}

func (v *vault) searchCommand(ctx context.Context, c call, out *strings.Builder) bool {
	v.search(ctx, c, out)
	return true
}

func (v *vault) backlinks(ctx context.Context, c call, out *strings.Builder) bool {
	p, ok := v.locate(c, out)
	if !ok {
		return true
	}
	bl, err := v.eng.Backlinks(ctx, note.ByPath(p))
	if v.fail(err, p, out) {
		return true
	}
	var files []map[string]string
	seen := map[string]bool{}
	for _, r := range bl.Backlinks {
		if !seen[r.Path] {
			seen[r.Path] = true
			files = append(files, map[string]string{"file": r.Path})
		}
	}
	writeJSONOr(out, c, files, func() {
		for _, f := range files {
			out.WriteString(f["file"] + "\n")
		}
	})
	return true
}

func (v *vault) unresolved(ctx context.Context, c call, out *strings.Builder) bool {
	un, err := v.eng.Unresolved(ctx)
	if v.fail(err, "", out) {
		return true
	}
	var list []map[string]any
	for _, u := range un {
		list = append(list, map[string]any{"link": u.Target, "count": u.Count})
	}
	writeJSONOr(out, c, list, func() {
		for _, u := range un {
			out.WriteString(u.Target + "\n")
		}
	})
	return true
}

func (v *vault) orphans(ctx context.Context, _ call, out *strings.Builder) bool {
	orphans, err := v.eng.Orphans(ctx)
	if v.fail(err, "", out) {
		return true
	}
	for _, p := range orphans {
		out.WriteString(p + "\n")
	}
	return true
}

func (v *vault) tags(ctx context.Context, c call, out *strings.Builder) bool {
	tags, err := v.eng.Tags(ctx)
	if v.fail(err, "", out) {
		return true
	}
	var list []map[string]any
	for _, t := range tags {
		list = append(list, map[string]any{"tag": "#" + t.Tag, "count": t.Count})
	}
	writeJSONOr(out, c, list, func() {
		for _, t := range tags {
			out.WriteString("#" + t.Tag + "\n")
		}
	})
	return true
}

func (v *vault) properties(ctx context.Context, c call, out *strings.Builder) bool {
	if _, ok := c.params["path"]; ok {
		return false // one note's frontmatter: not used by the server
	}
	props, err := v.eng.Properties(ctx)
	if v.fail(err, "", out) {
		return true
	}
	var list []map[string]any
	for _, p := range props {
		list = append(list, map[string]any{"name": p.Name, "type": p.Types[0], "count": p.Count})
	}
	writeJSONOr(out, c, list, func() {
		for _, p := range props {
			fmt.Fprintf(out, "%s\t%s\t%d\n", p.Name, p.Types[0], p.Count)
		}
	})
	return true
}

func writeJSONOr(out *strings.Builder, c call, v any, text func()) {
	if c.params["format"] != "json" {
		text()
		return
	}
	if v == nil {
		v = []any{}
	}
	data, _ := json.Marshal(v)
	out.Write(data)
	out.WriteString("\n")
}

// search answers search and search:context: Obsidian's syntax is the
// engine's text syntax, and /regex/ its regular expression mode.
func (v *vault) search(ctx context.Context, c call, out *strings.Builder) {
	q, ok := c.params["query"]
	if !ok || q == "" {
		fmt.Fprintf(out, "Error: Missing required parameter: query=<text>\nUsage: %s query=<text> [path=<folder>] [limit=<n>] [format=text|json]\n", c.command)
		return
	}
	req := note.SearchRequest{Query: q, Mode: note.SearchText, Folder: c.params["path"], Limit: 1 << 30}
	if len(q) > 2 && strings.HasPrefix(q, "/") && strings.HasSuffix(q, "/") {
		req.Query, req.Mode = q[1:len(q)-1], note.SearchRegex
	}
	if n, err := strconv.Atoi(c.params["limit"]); err == nil && n > 0 {
		req.Limit = n
	}
	res, err := v.eng.Search(ctx, req)
	if err != nil {
		fmt.Fprintf(out, "Error: %s\n", strings.TrimPrefix(err.Error(), "invalid arguments: `query`: "))
		return
	}
	// Obsidian's search finds a note by its own text: not by the words of
	// the lines that link to it, as the engine's ranking also does.
	n := len(res.Hits)
	res.Hits = slices.DeleteFunc(res.Hits, func(h note.Hit) bool { return slices.Equal(h.Matched, []string{"link"}) })
	res.Total -= n - len(res.Hits)
	if c.command == "search" && c.flags["total"] {
		fmt.Fprintf(out, "%d\n", res.Total)
		return
	}
	if len(res.Hits) == 0 && c.params["format"] != "json" {
		out.WriteString("No matches found.\n")
		return
	}
	if c.command == "search" {
		var paths []string
		for _, h := range res.Hits {
			paths = append(paths, h.Path)
		}
		writeJSONOr(out, c, paths, func() {
			for _, p := range paths {
				out.WriteString(p + "\n")
			}
		})
		return
	}
	type match struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	type file struct {
		File    string  `json:"file"`
		Matches []match `json:"matches"`
	}
	var files []file
	for _, h := range res.Hits {
		got, err := v.eng.Read(ctx, note.ByPath(h.Path))
		if err != nil {
			continue
		}
		lines := strings.Split(got.Content, "\n")
		f := file{File: h.Path, Matches: []match{}}
		for _, s := range h.Snippets {
			if s.Line-1 < len(lines) {
				f.Matches = append(f.Matches, match{Line: s.Line, Text: strings.TrimSuffix(lines[s.Line-1], "\r")})
			}
		}
		files = append(files, f)
	}
	writeJSONOr(out, c, files, func() {
		for _, f := range files {
			for _, m := range f.Matches {
				fmt.Fprintf(out, "%s:%d: %s\n", f.File, m.Line, m.Text)
			}
		}
	})
}
