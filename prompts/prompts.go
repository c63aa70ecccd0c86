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

	"go.yaml.in/yaml/v3"

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
				}
				order = argumentOrder(content, declared)
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

// argumentOrder is the keys of the frontmatter's arguments mapping in the
// order the note writes them: a client shows a prompt's arguments in the
// order it gets them, and the decoded map had lost it (they came back
// alphabetical). Keys it cannot place (a frontmatter yaml.v3 reads
// otherwise than the metadata parser) follow, sorted.
func argumentOrder(content []byte, declared map[string]string) []string {
	var order []string
	var doc yaml.Node
	if end := note.FrontmatterEnd(content); end > 0 {
		_, block, _ := strings.Cut(string(content[:end]), "\n")
		block = strings.TrimSuffix(strings.TrimRight(block, "\r\n"), "---")
		if yaml.Unmarshal([]byte(block), &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
			m := doc.Content[0].Content
			for i := 0; i+1 < len(m); i += 2 {
				if m[i].Value != "arguments" || m[i+1].Kind != yaml.MappingNode {
					continue
				}
				args := m[i+1].Content
				for j := 0; j+1 < len(args); j += 2 {
					if _, ok := declared[args[j].Value]; ok && !slices.Contains(order, args[j].Value) {
						order = append(order, args[j].Value)
					}
				}
			}
		}
	}
	var rest []string
	for k := range declared {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}
