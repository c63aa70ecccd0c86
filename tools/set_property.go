package tools

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/patch"
)

type setPropertyArgs struct {
	locator
	version
	Key   string `json:"key" jsonschema:"The property name, e.g. status, due or tags." validate:"required,max=200,nocontrols"`
	Value any    `json:"value" jsonschema:"The value: a string, number, true/false, or an array of strings for a list. A date is a string YYYY-MM-DD with type date." validate:"required"`
	Type  string `json:"type,omitempty" jsonschema:"The property type, as Obsidian names them: text, number, checkbox (boolean is accepted too), date or list. Default: from the value's JSON type (string text, number number, true/false checkbox, array list)." validate:"omitempty,oneof=text number checkbox boolean date list"`
}

var setProperty = spec[setPropertyArgs, note.Edited]{
	name:  "obsidian_set_property",
	title: "Set property",
	description: "Set one frontmatter property of a note, typed (text, number, checkbox, date, list), and leave every other byte as it was: the other properties, their order, comments and quoting. " +
		"An existing property keeps its place; a new one goes at the end of the frontmatter; a note without frontmatter gets one. The value is checked against its type and refused rather than written if it would read back as another. " +
		"Pass the etag you read as `if_match` to refuse the edit if the note changed meanwhile (REVISION_CONFLICT). Returns {path, etag, changed}.",
	hints: hints{idempotent: true},
	run: func(ctx context.Context, v Vault, a setPropertyArgs) (note.Edited, error) {
		typ, value, err := typedValue(a.Type, a.Value)
		if err != nil {
			return note.Edited{}, err
		}
		return v.Edit.Edit(ctx, a.note(), a.IfMatch, func(cur []byte) ([]byte, error) {
			r, err := patch.SetProperty(cur, a.Key, typ, value)
			return r.Content, err
		})
	},
}

// typedValue reads a property value sent as JSON, and its type: given, or
// the JSON value's own.
func typedValue(typ string, v any) (string, any, error) {
	bad := func(msg string) error { return errors.InvalidFields(errors.Field{Field: "value", Message: msg}) }
	if typ == "boolean" {
		typ = patch.Checkbox
	}
	switch x := v.(type) {
	case string:
		if typ == "" {
			typ = patch.Text
		}
		if typ == patch.List {
			return typ, []string{x}, nil
		}
		return typ, x, nil
	case float64:
		if typ == "" {
			typ = patch.Number
		}
		return typ, strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		if typ == "" {
			typ = patch.Checkbox
		}
		return typ, strconv.FormatBool(x), nil
	case []any:
		if typ != "" && typ != patch.List {
			return "", nil, bad("is an array, which only type list takes")
		}
		items := make([]string, 0, len(x))
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				b, _ := json.Marshal(it)
				s = string(b)
			}
			items = append(items, s)
		}
		return patch.List, items, nil
	}
	return "", nil, bad("must be a string, number, true/false or an array of strings (null is not a value: use obsidian_remove_property)")
}
