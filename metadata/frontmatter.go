package metadata

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// parseFrontmatter reads the YAML between the '---' lines of block, which
// is the whole frontmatter block as note.FrontmatterEnd delimits it.
func (n *Note) parseFrontmatter(block []byte) {
	_, inner, _ := bytes.Cut(block, []byte{'\n'})
	inner = bytes.TrimRight(inner, "\r\n")
	inner = bytes.TrimSuffix(inner, []byte("---"))
	if len(inner) > MaxFrontmatter {
		n.FrontmatterError = fmt.Sprintf("the frontmatter is %d bytes, over the limit of %d; its properties are not read", len(inner), MaxFrontmatter)
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(inner, &doc); err != nil {
		n.FrontmatterError = noteLines(err.Error())
		return
	}
	if len(doc.Content) == 0 {
		return // empty frontmatter
	}
	m := deref(doc.Content[0])
	if m.Kind != yaml.MappingNode {
		n.FrontmatterError = "the frontmatter is not a list of properties (key: value lines)"
		return
	}
	seen := map[string]int{}
	budget := maxValues
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := deref(m.Content[i]).Value
		typ, val := convert(m.Content[i+1], 0, &budget)
		if budget < 0 {
			n.Properties = nil
			n.FrontmatterError = fmt.Sprintf("the frontmatter holds more than %d values once its aliases are expanded; its properties are not read", maxValues)
			return
		}
		p := Property{Key: key, Type: typ, Value: val}
		if at, dup := seen[key]; dup {
			n.Properties[at] = p // the last one wins, as in YAML parsers that accept duplicates
			continue
		}
		seen[key] = len(n.Properties)
		n.Properties = append(n.Properties, p)
	}
	for _, p := range n.Properties {
		switch strings.ToLower(p.Key) {
		case "tags", "tag":
			for _, t := range stringsOf(p.Value, true) {
				n.Tags = append(n.Tags, Tag{Name: t})
			}
		case "aliases", "alias":
			n.Aliases = append(n.Aliases, stringsOf(p.Value, false)...)
		}
	}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// noteLines restates a YAML error's line, counted from the frontmatter's
// first line, as a line of the note (one more, for the opening ---).
func noteLines(msg string) string {
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return strings.TrimPrefix(msg, "yaml: ")
	}
	n, _ := strconv.Atoi(m[1])
	return fmt.Sprintf("line %d: %s", n+1, msg[len(m[0]):])
}

// stringsOf reads a list property, or a string of comma-separated items
// (and, for tags, space-separated ones), as Obsidian accepts both. Tags
// lose their leading '#' and '/' and their trailing '/'.
func stringsOf(v any, tags bool) []string {
	var raw []string
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			if s, ok := scalarString(x); ok {
				raw = append(raw, s)
			}
		}
	default:
		s, ok := scalarString(v)
		if !ok {
			return nil
		}
		sep := func(r rune) bool { return r == ',' || tags && (r == ' ' || r == '\t') }
		raw = strings.FieldsFunc(s, sep)
	}
	var out []string
	for _, s := range raw {
		s = strings.TrimSpace(s)
		if tags {
			// Every leading '#' and '/' at once, so that a name read
			// reads back as itself when written ("/#" was read as the
			// tag "#", which, written, read as none: found by fuzzing).
			s = strings.TrimRight(strings.TrimLeft(s, "#/"), "/")
			if strings.ContainsAny(s, " \t") {
				continue // not a tag Obsidian would accept
			}
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int64:
		return strconv.FormatInt(v, 10), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// isDatetime reports whether an unquoted value is a date and time the way
// Obsidian writes them (2026-11-23T10:00, seconds and zone optional), which
// YAML itself takes for a string.
func isDatetime(s string) bool {
	if len(s) < len("2006-01-02T15:04") || s[4] != '-' || s[10] != 'T' {
		return false
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05.999999999Z07:00"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Bounds of a note's frontmatter: its bytes, and the values it holds once
// aliases are expanded (a few lines of anchors and aliases, each list
// naming the one before ten times, expand to a billion values).
const (
	MaxFrontmatter = 1 << 20
	maxValues      = 100_000
)

// convert turns a YAML value into typed JSON and names its property type.
// depth bounds alias chains that refer to themselves; budget counts the
// values made, and below 0 says the frontmatter expanded past maxValues.
func convert(n *yaml.Node, depth int, budget *int) (string, any) {
	n = deref(n)
	*budget--
	if depth > 20 || *budget < 0 {
		return "null", nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			_, v := convert(c, depth+1, budget)
			list = append(list, v)
		}
		return "list", list
	case yaml.MappingNode:
		obj := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			_, v := convert(n.Content[i+1], depth+1, budget)
			obj[deref(n.Content[i]).Value] = v
		}
		return "object", obj
	}
	switch n.ShortTag() {
	case "!!null":
		return "null", nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return "checkbox", b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return "number", i
		}
		var f float64
		if n.Decode(&f) == nil {
			return "number", f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return "number", f
		}
	case "!!timestamp":
		if len(n.Value) == len("2006-01-02") {
			return "date", n.Value
		}
		return "datetime", n.Value
	case "!!str":
		if n.Style == 0 && isDatetime(n.Value) {
			return "datetime", n.Value
		}
	}
	return "text", n.Value
}
