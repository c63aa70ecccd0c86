// Package prompts turns vault notes into MCP prompts: a note tagged
// mcp-prompt (or a tag below it) is a prompt named after the note, with
// its frontmatter description, and the {{placeholders}} of its body as
// arguments. Getting it fills them in. {{date}}, {{time}} and {{title}}
// are filled as the core Templates plugin fills them, unless the note
// declares them as arguments.
//
// It does no I/O.
package prompts

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Tag marks a note as a prompt.
const Tag = "mcp-prompt"

// Prompt is one note served as a prompt.
type Prompt struct {
	Name        string
	Path        string
	Description string
	Args        []Arg
	body        string
}

// Arg is one argument of a prompt.
type Arg struct {
	Name        string
	Description string
}

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)

// builtins are filled by the server unless the note makes them
// arguments.
var builtins = []string{"date", "time", "title"}

// FromNote reads the prompt a note holds; ok is false when the note is
// not tagged as one.
func FromNote(path string, content []byte) (p Prompt, ok bool) {
	meta := metadata.Parse(content)
	for _, t := range meta.Tags {
		name := strings.ToLower(t.Name)
		ok = ok || name == Tag || strings.HasPrefix(name, Tag+"/")
	}
	if !ok {
		return Prompt{}, false
	}
	p = Prompt{Name: note.Stem(path), Path: path}
	declared := map[string]string{}
	var order []string
	for _, prop := range meta.Properties {
		switch prop.Key {
		case "description":
			p.Description, _ = prop.Value.(string)
		case "arguments":
			switch v := prop.Value.(type) {
			case map[string]any:
				for k, d := range v {
					declared[k], _ = d.(string)
					order = append(order, k)
				}
				sort.Strings(order)
			case []any:
				for _, k := range v {
					if s, ok := k.(string); ok {
						declared[s] = ""
						order = append(order, s)
					}
				}
			}
		}
	}
	p.body = strings.TrimSpace(string(content[note.FrontmatterEnd(content):]))
	for _, name := range order {
		p.Args = append(p.Args, Arg{Name: name, Description: declared[name]})
	}
	for _, m := range placeholder.FindAllStringSubmatch(p.body, -1) {
		name := m[1]
		if _, ok := declared[name]; ok || slices.Contains(builtins, name) || slices.ContainsFunc(p.Args, func(a Arg) bool { return a.Name == name }) {
			continue
		}
		p.Args = append(p.Args, Arg{Name: name})
	}
	return p, true
}

// Fill is the prompt's text with its arguments filled in; each argument
// is required.
func (p Prompt) Fill(args map[string]string, now time.Time) (string, error) {
	var missing []string
	for _, a := range p.Args {
		if _, ok := args[a.Name]; !ok {
			missing = append(missing, a.Name)
		}
	}
	if missing != nil {
		return "", fmt.Errorf("the prompt %s needs the argument(s) %s", p.Name, strings.Join(missing, ", "))
	}
	auto := map[string]string{"date": now.Format(time.DateOnly), "time": now.Format("15:04"), "title": p.Name}
	return placeholder.ReplaceAllStringFunc(p.body, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if v, ok := args[name]; ok {
			return v
		}
		if v, ok := auto[name]; ok {
			return v
		}
		return m
	}), nil
}

// Named gives each prompt its name: the note's name, or its path without
// .md where several notes share a name.
func Named(ps []Prompt) []Prompt {
	count := map[string]int{}
	for _, p := range ps {
		count[strings.ToLower(p.Name)]++
	}
	for i := range ps {
		if count[strings.ToLower(ps[i].Name)] > 1 {
			ps[i].Name = strings.TrimSuffix(ps[i].Path, note.MarkdownExt)
		}
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].Name < ps[b].Name })
	return ps
}
