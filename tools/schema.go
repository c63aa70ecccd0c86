package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// The tools' schemas are generated from their Go types (mcp-go, through
// google/jsonschema-go) and then rewritten into the subset of JSON Schema
// that every client we know accepts, Gemini's function declarations (an
// OpenAPI 3.0 subset) being the narrowest; docs/schemas.md lists it. The
// generator writes a slice as "type": ["null", "array"] (a nil slice is
// null in encoding/json), leaves an `any` untyped, and closes every object
// with additionalProperties: false, and Gemini-style clients refuse all
// three. The rewrite:
//   - drops "null" from type unions: an optional argument is left out
//     rather than sent as null, and a result never holds a null list
//     (nonNull fills them in before it goes out);
//   - types what was untyped: the tool's own schema for an argument
//     (spec.inputs), and for a result's free-form value anyValue;
//   - drops additionalProperties: the server itself refuses an argument it
//     does not know, naming it (INVALID_PARAMS), so nothing is lost.

// subsetKeywords are the only keywords a rewritten schema holds.
var subsetKeywords = map[string]bool{
	"type": true, "description": true, "properties": true, "required": true, "items": true,
	"enum": true, "format": true, "nullable": true, "anyOf": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true, "pattern": true,
}

// subsetTypes are the types a node may name; "null" only as one branch of
// a result's anyOf (anyValue).
var subsetTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true}

// anyValue is a result's free-form value (a property's, a Dataview cell's):
// any JSON value, each branch typed.
func anyValue(description string) map[string]any {
	branches := []any{}
	for _, t := range []string{"string", "number", "boolean", "array", "object", "null"} {
		branches = append(branches, map[string]any{"type": t})
	}
	s := map[string]any{"anyOf": branches}
	if description != "" {
		s["description"] = description
	}
	return s
}

// portableSchema rewrites a generated schema into the subset. inputs are
// the tool's own schemas for top-level properties the generator cannot
// type (an argument of Go type any); result says the schema is an output
// schema, where a free-form value becomes anyValue. An input property left
// untyped without one of its own is an error: every argument is typed.
func portableSchema(raw []byte, inputs map[string]map[string]any, result bool) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	if props, ok := root["properties"].(map[string]any); ok {
		for name, s := range inputs {
			p, ok := props[name].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("an input schema for %q, which is not an argument", name)
			}
			// A deep copy: the spec's schema is shared by every build
			// of the tool (several servers, tests in parallel), and the
			// rewrite below changes what it is given.
			var own map[string]any
			data, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(data, &own); err != nil {
				return nil, err
			}
			if d, ok := p["description"]; ok {
				own["description"] = d
			}
			props[name] = own
		}
	}
	if err := rewrite(root, "", result, false); err != nil {
		return nil, err
	}
	return json.Marshal(root)
}

// rewrite brings node, at path, into the subset in place. required says
// node is a required property of a result: there a null it may hold (a nil
// pointer to a struct, which nonNull cannot fill) stays a null branch.
func rewrite(node map[string]any, path string, result, required bool) error {
	delete(node, "additionalProperties")
	delete(node, "$schema")
	switch t := node["type"].(type) {
	case []any:
		var kept []any
		for _, x := range t {
			if x != "null" {
				kept = append(kept, x)
			}
		}
		if len(kept) != 1 {
			return fmt.Errorf("%s: a union of types %v, which the subset cannot say", path, t)
		}
		node["type"] = kept[0]
		if _, isStruct := node["properties"]; required && isStruct && len(kept) < len(t) {
			// A pointer to a struct, written even when nil.
			if err := rewrite(node, path, result, false); err != nil {
				return err
			}
			obj := maps.Clone(node)
			d, hasD := obj["description"]
			delete(obj, "description")
			clear(node)
			node["anyOf"] = []any{obj, map[string]any{"type": "null"}}
			if hasD {
				node["description"] = d
			}
			return nil
		}
	case nil:
		if _, ok := node["anyOf"]; !ok {
			if !result {
				return fmt.Errorf("%s: an argument of no type; give the tool's spec an input schema for it", path)
			}
			d, _ := node["description"].(string)
			clear(node)
			maps.Copy(node, anyValue(d))
		}
	}
	if props, ok := node["properties"].(map[string]any); ok {
		req := map[string]bool{}
		if r, ok := node["required"].([]any); ok {
			for _, x := range r {
				if name, ok := x.(string); ok {
					req[name] = true
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			switch p := props[name].(type) {
			case map[string]any:
				if err := rewrite(p, path+"."+name, result, result && req[name]); err != nil {
					return err
				}
			case bool: // the schema true: anything
				if !result {
					return fmt.Errorf("%s.%s: an argument of no type; give the tool's spec an input schema for it", path, name)
				}
				props[name] = anyValue("")
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		if err := rewrite(items, path+"[]", result, result); err != nil { // an element is always written
			return err
		}
	}
	if branches, ok := node["anyOf"].([]any); ok {
		for i, b := range branches {
			if m, ok := b.(map[string]any); ok {
				if err := rewrite(m, fmt.Sprintf("%s.anyOf[%d]", path, i), result, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SubsetProblems lists where schema, a tool's input schema or (result) its
// output schema, leaves the subset: a keyword outside it, a node of no type
// or of several, an array without items. It is what the tests check every
// tool against, and docs/schemas.md describes.
func SubsetProblems(schema []byte, result bool) []string {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return []string{"not a JSON object: " + err.Error()}
	}
	var out []string
	var check func(node map[string]any, path string, branch bool)
	check = func(node map[string]any, path string, branch bool) {
		for _, k := range slices.Sorted(maps.Keys(node)) {
			if !subsetKeywords[k] {
				out = append(out, fmt.Sprintf("%s: keyword %q", path, k))
			}
		}
		t, typed := node["type"].(string)
		branches, union := node["anyOf"].([]any)
		switch {
		case typed && union:
			out = append(out, path+": both a type and anyOf")
		case typed && t == "null" && !(result && branch):
			out = append(out, path+`: type "null" (only a result's anyOf branch may be null)`)
		case typed && t != "null" && !subsetTypes[t]:
			out = append(out, fmt.Sprintf("%s: type %q", path, t))
		case !typed && !union:
			out = append(out, fmt.Sprintf("%s: no single type (%v)", path, node["type"]))
		}
		if t == "array" && !result {
			if _, ok := node["items"].(map[string]any); !ok {
				out = append(out, path+": an array argument without items")
			}
		}
		if e, ok := node["enum"].([]any); ok {
			for _, v := range e {
				if _, ok := v.(string); !ok {
					out = append(out, fmt.Sprintf("%s: enum value %v is not a string", path, v))
				}
			}
		}
		if props, ok := node["properties"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(props)) {
				p, ok := props[name].(map[string]any)
				if !ok {
					out = append(out, path+"."+name+": not a schema object")
					continue
				}
				check(p, path+"."+name, false)
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			check(items, path+"[]", false)
		}
		for i, b := range branches {
			m, ok := b.(map[string]any)
			if !ok {
				out = append(out, fmt.Sprintf("%s.anyOf[%d]: not a schema object", path, i))
				continue
			}
			check(m, fmt.Sprintf("%s.anyOf[%d]", path, i), true)
		}
	}
	check(root, "", false)
	return out
}
