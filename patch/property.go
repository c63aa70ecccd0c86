package patch

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/yamltext"
)

// The property types SetProperty writes, as Obsidian names them.
const (
	Text     = "text"
	Number   = "number"
	Checkbox = "checkbox"
	Date     = "date"
	List     = "list"
)

// SetProperty sets one frontmatter property and leaves every other byte of
// the note as it was: the other keys, their order, comments and quoting.
// The property's own lines are rewritten (an existing key keeps its
// place); a new one goes at the end of the frontmatter, and a note without
// frontmatter gets one. value is a string (text, number, checkbox, date)
// or a []string (list), checked against typ. The result is parsed again,
// and refused rather than written if it would not read back as typ.
func SetProperty(content []byte, key, typ string, value any) (Result, error) {
	return underBOM(content, func(content []byte) (Result, error) { return setProperty(content, key, typ, value) })
}

func setProperty(content []byte, key, typ string, value any) (Result, error) {
	if err := checkKey(key); err != nil {
		return Result{}, err
	}
	if len(key) > maxKey {
		// YAML writes a longer key in the explicit "? key" form, which is
		// no property line a later edit would find (fuzz).
		return Result{}, errors.InvalidFields(errors.Field{Field: "key", Message: fmt.Sprintf("must be at most %d bytes to be set", maxKey)})
	}
	node, err := valueNode(typ, value)
	if err != nil {
		return Result{}, err
	}
	nl := note.Newline(content)
	rendered, err := render(key, node, nl)
	if err != nil {
		return Result{}, err
	}
	var r Result
	fm := frontmatter(content)
	switch {
	case fm.end == 0:
		r = splice(content, 0, 0, "---"+nl+rendered+"---"+nl)
	default:
		from, to, found := fm.key(content, key)
		if !found {
			from, to = fm.close, fm.close
		} else if err := fm.once(content, key, to); err != nil {
			return Result{}, err
		}
		r = splice(content, from, to, rendered)
	}
	if got := propertyOf(r.Content, key); got == nil || got.Type != typ {
		return Result{}, errors.E(errors.InvalidParams, "setting %q would not read back as a %s property; nothing was changed", key, typ).
			WithHint("Check the value: a list item or text that YAML would read as another type needs different wording.")
	}
	return r, nil
}

// RemoveProperty removes one frontmatter property's lines; every other
// byte stays, but for a frontmatter left empty, which is removed. A missing key changes nothing, and removed is false.
func RemoveProperty(content []byte, key string) (r Result, removed bool, err error) {
	r, err = underBOM(content, func(content []byte) (Result, error) {
		var r Result
		var err error
		r, removed, err = removeProperty(content, key)
		return r, err
	})
	return r, removed, err
}

func removeProperty(content []byte, key string) (r Result, removed bool, err error) {
	if err := checkKey(key); err != nil {
		return Result{}, false, err
	}
	fm := frontmatter(content)
	if fm.end == 0 {
		return Result{Content: content}, false, nil
	}
	from, to, found := fm.key(content, key)
	if !found {
		return Result{Content: content}, false, nil
	}
	if err := fm.once(content, key, to); err != nil {
		return Result{}, false, err
	}
	if len(bytes.TrimSpace(content[fm.body:from])) == 0 && len(bytes.TrimSpace(content[to:fm.close])) == 0 {
		// The last property: the block goes too, as when Obsidian removes
		// it, so that setting a property on a note without frontmatter and
		// removing it gives the note back.
		return splice(content, 0, fm.end, ""), true, nil
	}
	return splice(content, from, to, ""), true, nil
}

func checkKey(key string) error {
	if key == "" || strings.TrimSpace(key) != key || strings.ContainsAny(key, ":\n\r#") {
		return errors.InvalidFields(errors.Field{Field: "key", Message: "must be a property name without surrounding spaces, ':', '#' or line breaks, e.g. status"})
	}
	return nil
}

// maxKey bounds a property name: go-yaml writes keys over 128 bytes as
// complex keys.
const maxKey = 100

// fmBlock locates a frontmatter block: end is just past its closing line
// (0: none), close is where the closing line starts, and body where the
// first key line starts.
type fmBlock struct{ body, close, end int }

func frontmatter(content []byte) fmBlock {
	end := note.FrontmatterEnd(content)
	if end == 0 {
		return fmBlock{}
	}
	body := bytes.IndexByte(content, '\n') + 1
	closeAt := bytes.LastIndex(content[:end], []byte("---"))
	return fmBlock{body: body, close: closeAt, end: end}
}

// key finds the lines of a top-level key: its own line and every line
// after it that belongs to its value (indented, a "- " item, blank or a
// comment inside it), up to the next key or the closing line.
func (fm fmBlock) key(content []byte, key string) (from, to int, found bool) {
	return fm.keyAt(content, key, fm.body)
}

// once refuses a key the frontmatter holds again after the lines that
// end at to: YAML allows a key once, readers take one or the other or
// refuse the block, and an edit of one leaves the other to say the old
// value (found by fuzzing: tags added to the first "tag:" were shadowed by
// a second).
func (fm fmBlock) once(content []byte, key string, to int) error {
	if _, _, again := fm.keyAt(content, key, to); again {
		return errors.E(errors.InvalidParams, "the frontmatter holds the key %q twice, which YAML does not allow; nothing was changed", key).
			WithHint("Remove one of the two (obsidian_replace_in_note on its line), then try again.")
	}
	return nil
}

// keyAt is key, looking from the line at off on.
func (fm fmBlock) keyAt(content []byte, key string, off int) (from, to int, found bool) {
	for off < fm.close {
		line := lineAt(content, off, fm.close)
		if k, ok := lineKey(line); ok && k == key {
			from = off
			to = off + len(line)
			parsed := fm.parse(content)
			for to < fm.close {
				next := lineAt(content, to, fm.close)
				t := strings.TrimRight(string(next), "\r\n")
				if t == "" || t[0] == ' ' || t[0] == '\t' || strings.HasPrefix(t, "- ") || t == "-" ||
					parsed.inValue(content, from, to, t) {
					to += len(next)
					continue
				}
				break
			}
			// Blank lines after the value belong to the next key's spacing,
			// unless the value is a block scalar that keeps them ("|+").
			for to > from+len(line) && !keepsTrailingLines(line) {
				prev := bytes.LastIndexByte(content[from:to-1], '\n')
				last := strings.TrimSpace(string(content[from+prev+1 : to]))
				if last != "" {
					break
				}
				to = from + prev + 1
			}
			return from, to, true
		}
		off += len(line)
	}
	return 0, 0, false
}

// keepsTrailingLines reports whether a "key: value" line opens a block
// scalar with the keep indicator (|+, >+, |2+ ...), whose trailing blank
// lines are part of its value (found by fuzzing: a "\n" value set as
// "k: |2+" and an empty line, whose removal left the empty line behind).
func keepsTrailingLines(line []byte) bool {
	_, v, _ := strings.Cut(string(line), ":")
	v = strings.TrimSpace(v)
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i]) // a comment after the header
	}
	return len(v) > 1 && (v[0] == '|' || v[0] == '>') && strings.Trim(v[1:], "0123456789+") == "" && strings.Contains(v, "+")
}

func lineAt(content []byte, off, limit int) []byte {
	end := bytes.IndexByte(content[off:limit], '\n')
	if end < 0 {
		return content[off:limit]
	}
	return content[off : off+end+1]
}

// lineKey reads the key of a top-level "key: value" line.
func lineKey(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	// A "- " line is a list item; "-0:" is a key (found by fuzzing).
	if s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '#' || s[0] == '-' && (len(s) == 1 || s[1] == ' ' || s[1] == '\t') {
		return "", false
	}
	var doc yaml.Node
	// The line alone, when it is YAML by itself, names its key as the
	// parser does ("0::" is the key "0:", "'a: b': x" the key "a: b").
	if yaml.Unmarshal([]byte(s), &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode && len(doc.Content[0].Content) >= 2 {
		return doc.Content[0].Content[0].Value, true
	}
	// Otherwise (a value that goes on below, "k: [a,") the key ends at the
	// mapping indicator: the first colon followed by a blank or the end
	// of the line, not any colon (found by fuzzing: "0::" is not key "0").
	// The key alone, decoded as YAML, spells it as the parser does
	// ("key", 'key' and key are the same key).
	k, ok := "", false
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			k, ok = s[:i], true
			break
		}
	}
	if !ok {
		return "", false
	}
	if yaml.Unmarshal([]byte(k+": x"), &doc) == nil && len(doc.Content) == 1 && len(doc.Content[0].Content) == 2 {
		return doc.Content[0].Content[0].Value, true
	}
	return strings.TrimSpace(k), true
}

// valueNode checks a value against its type and builds its YAML node.
func valueNode(typ string, value any) (*yaml.Node, error) {
	bad := func(msg string) error {
		return errors.InvalidFields(errors.Field{Field: "value", Message: msg})
	}
	scalar := func(tag, v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }
	switch typ {
	case List:
		items, ok := value.([]string)
		if !ok {
			return nil, bad("must be a list of strings for type list")
		}
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, it := range items {
			n.Content = append(n.Content, scalar("!!str", it))
		}
		return n, nil
	}
	s, ok := value.(string)
	if !ok {
		return nil, bad("must be a string for type " + typ)
	}
	switch typ {
	case Text:
		return scalar("!!str", s), nil
	case Number:
		var f float64
		if _, err := fmt.Sscan(s, &f); err != nil || strings.ContainsAny(s, " \t") {
			return nil, bad(fmt.Sprintf("must be a number for type number, e.g. 42 or 3.5 (got %q)", s))
		}
		return scalar("", s), nil
	case Checkbox:
		if s != "true" && s != "false" {
			return nil, bad(`must be "true" or "false" for type checkbox`)
		}
		return scalar("!!bool", s), nil
	case Date:
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return nil, bad(fmt.Sprintf("must be a date YYYY-MM-DD for type date (got %q)", s))
		}
		return scalar("", s), nil
	}
	return nil, errors.InvalidFields(errors.Field{Field: "type", Message: "must be one of: text, number, checkbox, date, list"})
}

// render writes "key: value" lines the way Obsidian does (lists as an
// indented block), in the note's line ending, every character as itself
// (package yamltext: yaml.v3 wrote an emoji in a value as \U0001F34E).
func render(key string, value *yaml.Node, nl string) (string, error) {
	var b strings.Builder
	b.WriteString(yamltext.PropertyKey(key))
	b.WriteByte(':')
	switch {
	case value.Kind == yaml.SequenceNode && len(value.Content) == 0:
		b.WriteString(" []\n")
	case value.Kind == yaml.SequenceNode:
		b.WriteByte('\n')
		for _, it := range value.Content {
			b.WriteString("  -")
			b.WriteString(scalarText(it, 4))
		}
	default:
		b.WriteString(scalarText(value, 2))
	}
	out := b.String()
	if nl != "\n" {
		out = strings.ReplaceAll(out, "\n", nl)
	}
	return out, nil
}

// scalarText is a value after its colon or dash, to the end of its last
// line: a number, date or checkbox as checked (valueNode), a text that
// reads back as itself, several lines as a block of them at indent.
func scalarText(n *yaml.Node, indent int) string {
	switch {
	case n.Tag != "!!str":
		return " " + n.Value + "\n"
	case strings.Contains(n.Value, "\r"):
		// A block would drop a carriage return; the value must read
		// back exactly.
		return " " + yamltext.DoubleQuoted(n.Value) + "\n"
	case strings.Contains(n.Value, "\n"):
		if lit, ok := yamltext.Literal(n.Value, indent); ok {
			return lit
		}
		return " " + yamltext.DoubleQuoted(n.Value) + "\n"
	}
	return " " + yamltext.String(n.Value, false) + "\n"
}

// propertyOf reads one property back from a note.
func propertyOf(content []byte, key string) *metadata.Property {
	n := metadata.Parse(content)
	if n.FrontmatterError != "" {
		return nil
	}
	for i := range n.Properties {
		if n.Properties[i].Key == key {
			return &n.Properties[i]
		}
	}
	return nil
}

// ApplyProperty is Apply for a frontmatter property, as the patch tool
// offers it: replace sets the value, keeping the property's type (a list
// takes one item per line of text); append and prepend add the lines of
// text as items at the end or start of a list property. A missing property
// is an error unless createIfMissing (then replace makes it text, and
// append or prepend a list, and Result.Created names it). Field errors name the patch tool's
// arguments: property, operation, content.
func ApplyProperty(content []byte, key, op, text string, createIfMissing bool) (Result, error) {
	if err := checkKey(key); err != nil {
		return Result{}, renameField(err, "property")
	}
	cur := propertyOf(content, key)
	if cur == nil && !createIfMissing {
		if n := metadata.Parse(content); n.FrontmatterError != "" {
			return Result{}, errors.E(errors.InvalidParams, "the note's frontmatter is not valid YAML (%s); nothing was changed", n.FrontmatterError).
				WithHint("Fix the frontmatter first (read the note to see it).")
		}
		return Result{}, missingProperty(metadata.Parse(content), key)
	}
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var items []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			items = append(items, line)
		}
	}
	var (
		r   Result
		err error
	)
	switch op {
	case Replace:
		typ := Text
		if cur != nil {
			switch cur.Type {
			case Number, Checkbox, Date, List:
				typ = cur.Type
			}
		}
		if typ == List {
			r, err = SetProperty(content, key, List, orEmpty(items))
		} else {
			r, err = SetProperty(content, key, typ, text)
		}
	case Append, Prepend:
		var have []string
		if cur != nil {
			switch v := cur.Value.(type) {
			case nil:
			case []any:
				for _, it := range v {
					have = append(have, fmt.Sprint(it))
				}
			default:
				return Result{}, errors.InvalidFields(errors.Field{Field: "operation", Message: fmt.Sprintf("append and prepend add items to a list property, and %q is %s; use replace to set it", key, cur.Type)})
			}
		}
		if op == Append {
			have = append(have, items...)
		} else {
			have = append(items, have...)
		}
		r, err = SetProperty(content, key, List, orEmpty(have))
	default:
		return Result{}, errors.InvalidFields(errors.Field{Field: "operation", Message: "a property takes replace, append or prepend (before and after place text around headings and blocks)"})
	}
	if err == nil && cur == nil {
		r.Created = key
	}
	return r, renameField(err, "content")
}

func orEmpty(items []string) []string {
	if items == nil {
		return []string{}
	}
	return items
}

// renameField renames SetProperty's field names (key, value) to the ones
// the calling tool uses.
func renameField(err error, value string) error {
	var e *errors.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return err
	}
	out := *e
	out.Fields = append([]errors.Field(nil), e.Fields...)
	for i := range out.Fields {
		switch out.Fields[i].Field {
		case "key":
			out.Fields[i].Field = "property"
		case "value":
			out.Fields[i].Field = value
		}
	}
	out.Message = strings.NewReplacer("`key`", "`property`", "`value`", "`"+value+"`").Replace(out.Message)
	return &out
}
