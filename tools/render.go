package tools

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/yamltext"
)

// render is a result's text block: its data written as YAML, which says
// the same as the structured content's JSON in fewer tokens (no quotes or
// braces, a note's lines as lines rather than one escaped string) and
// reads as text. A client that shows the model only the text block (Claude
// Desktop, ChatGPT) loses nothing; one that shows the structured content
// (Claude Code) gets the JSON. Fields keep their order.
//
// Every character is written as itself, emoji included: a model copies
// text from the block into an edit (a task's line into replace_in_note),
// and an escape such as \U0001F4C5 is not in the note. yaml.v3's emitter
// counts every character outside the Basic Multilingual Plane as
// unprintable, escapes it, and then cannot write a note that holds one as
// lines; so the scalars are written by package yamltext.
func render(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", errors.E(errors.Internal, "encoding the result: %v", err)
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	root, err := decodeOrdered(dec)
	if err != nil {
		return "", errors.E(errors.Internal, "rendering the result: %v", err)
	}
	var out emitter
	root.writeTop(&out)
	text := out.String()
	if !out.endsInBlock {
		// The block's last line break is part of its text.
		text = strings.TrimSuffix(text, "\n")
	}
	return text, nil
}

// emitter is the text being written, and whether it ends with a literal
// block whose text ends with a line break.
type emitter struct {
	strings.Builder
	endsInBlock bool
}

// yval is a JSON value with its object's keys in order.
type yval struct {
	kind  byte // 'm' object, 's' array, 't' string, 'r' other scalar (number, bool, null)
	keys  []string
	elems []*yval // an object's values (by keys) or an array's elements
	text  string  // a scalar's: the string, or the JSON literal
}

// decodeOrdered reads one JSON value from dec, keeping key order.
func decodeOrdered(dec *json.Decoder) (*yval, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := &yval{kind: 'm'}
		if t == '[' {
			v.kind = 's'
		}
		for dec.More() {
			if v.kind == 'm' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k.(string))
			}
			e, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return v, nil
	case string:
		return &yval{kind: 't', text: t}, nil
	case json.Number:
		return &yval{kind: 'r', text: t.String()}, nil
	case bool:
		if t {
			return &yval{kind: 'r', text: "true"}, nil
		}
		return &yval{kind: 'r', text: "false"}, nil
	default: // nil
		return &yval{kind: 'r', text: "null"}, nil
	}
}

func (v *yval) scalar() bool { return v.kind == 't' || v.kind == 'r' }

// flat reports whether v is a collection written on one line ({path: a.md,
// line: 3}, [a, b]): one of scalars, none of several lines.
func (v *yval) flat() bool {
	if v.scalar() {
		return false
	}
	for i, e := range v.elems {
		if !e.scalar() || strings.ContainsAny(e.text, "\n\r") || v.kind == 'm' && len(yamltext.Key(v.keys[i], true)) > maxImplicitKey {
			return false
		}
	}
	return true
}

// maxImplicitKey is the longest key YAML lets stand before its colon
// alone (1,024 characters, bytes here to be safe); a longer one is written
// as an explicit "? key".
const maxImplicitKey = 1000

// block reports whether v is written as a block on the lines below its
// key: a collection with something in it that is not flat.
func (v *yval) block() bool { return !v.scalar() && len(v.elems) > 0 && !v.flat() }

// writeTop writes the answer itself as a block: one line per field, or
// per element.
func (v *yval) writeTop(b *emitter) {
	if v.scalar() || len(v.elems) == 0 {
		b.WriteString(strings.TrimPrefix(v.inline(false), " "))
		b.WriteByte('\n')
		return
	}
	v.writeBlock(b, 0)
}

// writeBlock writes the non-empty collection v as a block at indent.
func (v *yval) writeBlock(b *emitter, indent int) {
	pad := strings.Repeat(" ", indent)
	for i, e := range v.elems {
		if v.kind == 'm' {
			k := yamltext.Key(v.keys[i], false)
			b.WriteString(pad)
			if len(k) > maxImplicitKey {
				b.WriteString("? " + k + "\n" + pad)
			} else {
				b.WriteString(k)
			}
			b.WriteByte(':')
			e.writeValue(b, indent)
			continue
		}
		// An element: written as if a field at indent+2, with "- " in
		// place of its first two spaces.
		var item emitter
		if e.block() {
			e.writeBlock(&item, indent+2)
			s := item.String()
			b.WriteString(pad)
			b.WriteString("- ")
			b.WriteString(s[indent+2:])
			b.endsInBlock = item.endsInBlock
			continue
		}
		b.WriteString(pad)
		b.WriteByte('-')
		e.writeValue(b, indent)
	}
}

// writeValue writes v after its key's colon (or an element's dash), the
// key at indent: inline on the same line, or as a block on the lines after.
func (v *yval) writeValue(b *emitter, indent int) {
	switch {
	case v.block():
		b.WriteByte('\n')
		v.writeBlock(b, indent+2)
	case v.kind == 't' && strings.ContainsAny(v.text, "\n\r"):
		if lit, ok := yamltext.Literal(v.text, indent+2); ok {
			b.WriteString(lit)
			b.endsInBlock = strings.HasSuffix(strings.ReplaceAll(v.text, "\r\n", "\n"), "\n")
			return
		}
		b.WriteByte(' ')
		b.WriteString(yamltext.DoubleQuoted(v.text))
		b.WriteByte('\n')
		b.endsInBlock = false
	default:
		b.WriteString(v.inline(false))
		b.WriteByte('\n')
		b.endsInBlock = false
	}
}

// inline is v on one line, after a space; flow says it stands inside a
// flow collection, where a plain word may not hold , [ ] { }.
func (v *yval) inline(flow bool) string {
	switch v.kind {
	case 'r':
		return " " + v.text
	case 't':
		return " " + yamltext.String(v.text, flow)
	}
	open, close := "{", "}"
	if v.kind == 's' {
		open, close = "[", "]"
	}
	parts := make([]string, len(v.elems))
	for i, e := range v.elems {
		s := strings.TrimPrefix(e.inline(true), " ")
		if v.kind == 'm' {
			s = yamltext.Key(v.keys[i], true) + ": " + s
		}
		parts[i] = s
	}
	return " " + open + strings.Join(parts, ", ") + close
}
