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
	Value any    `json:"value" jsonschema:"A string, number, true/false, or array; a date as YYYY-MM-DD." validate:"required"`
	Type  string `json:"type,omitempty" jsonschema:"Default: from the value's JSON type." validate:"omitempty,oneof=text number checkbox boolean date list"`
}

var setProperty = spec[setPropertyArgs, note.Edited]{
	name:        "obsidian_set_property",
	toolset:     "edit",
	title:       "Set property",
	description: "Set one frontmatter property, typed (text, number, checkbox, date, list), keeping the others' order, comments and quoting. Returns {path, etag, changed}.",
	hints:       hints{idempotent: true},
	inputs: map[string]map[string]any{"value": {"anyOf": []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "number"},
		map[string]any{"type": "boolean"},
		map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}},
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
