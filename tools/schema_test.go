package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// TestEverySchemaInTheSubset: every tool's input and output schema, also
// as a server of several vaults serves them (a vault argument, and
// obsidian_list_vaults), stays within the subset docs/schemas.md lists.
// The generated schemas had type unions (["null", "array"]) in 4 tools'
// arguments and 39 results, an untyped set_property.value, and
// additionalProperties on every object.
func TestEverySchemaInTheSubset(t *testing.T) {
	one := All(on(&fakeBackend{}))
	two := All(on(&fakeBackend{}))
	for _, st := range Several([]VaultInfo{{Name: "Work"}, {Name: "Home"}}, [][]server.ServerTool{one, two}) {
		for _, p := range SubsetProblems(st.Tool.RawInputSchema, false) {
			t.Errorf("%s input: %s", st.Tool.Name, p)
		}
		for _, p := range SubsetProblems(st.Tool.RawOutputSchema, true) {
			t.Errorf("%s output: %s", st.Tool.Name, p)
		}
	}
}

// TestPortableSchema: the rewrite of generated schemas, and the checker.
func TestPortableSchema(t *testing.T) {
	cases := []struct {
		name, in string
		result   bool
		inputs   map[string]map[string]any
		want     string // the rewritten schema, or "error: ..." (a substring)
	}{
		{name: "an optional list argument", in: `{"type":"object","additionalProperties":false,"properties":{"a":{"type":["null","array"],"items":{"type":"string"}}}}`,
			want: `{"properties":{"a":{"items":{"type":"string"},"type":"array"}},"type":"object"}`},
		{name: "an untyped argument is refused", in: `{"type":"object","properties":{"v":{"description":"x"}}}`, want: "error: an argument of no type"},
		{name: "an argument typed by the spec", in: `{"type":"object","properties":{"v":{"description":"x"}}}`,
			inputs: map[string]map[string]any{"v": {"anyOf": []any{map[string]any{"type": "string"}}}},
			want:   `{"properties":{"v":{"anyOf":[{"type":"string"}],"description":"x"}},"type":"object"}`},
		{name: "a spec's schema for no argument", in: `{"type":"object","properties":{}}`, inputs: map[string]map[string]any{"w": {"type": "string"}}, want: "error: not an argument"},
		{name: "a result's free value", in: `{"type":"object","properties":{"v":{"description":"x"},"w":true}}`, result: true,
			want: `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"array"},{"type":"object"},{"type":"null"}],"description":"x"},"w":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"array"},{"type":"object"},{"type":"null"}]}},"type":"object"}`},
		{name: "a result's required pointer keeps its null", in: `{"type":"object","required":["p","l"],"properties":{"p":{"type":["null","object"],"description":"d","properties":{"x":{"type":"string"}},"additionalProperties":false},"l":{"type":["null","array"],"items":{"type":"integer"}}}}`, result: true,
			want: `{"properties":{"l":{"items":{"type":"integer"},"type":"array"},"p":{"anyOf":[{"properties":{"x":{"type":"string"}},"type":"object"},{"type":"null"}],"description":"d"}},"required":["p","l"],"type":"object"}`},
		{name: "a union of two types", in: `{"type":"object","properties":{"v":{"type":["string","integer"]}}}`, want: "error: a union of types"},
	}
	for _, c := range cases {
		got, err := portableSchema([]byte(c.in), c.inputs, c.result)
		switch {
		case strings.HasPrefix(c.want, "error: "):
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(c.want, "error: ")) {
				t.Errorf("%s: %s, %v; want an error %q", c.name, got, err, c.want)
			}
		case err != nil || string(got) != c.want:
			t.Errorf("%s: %v\n got %s\nwant %s", c.name, err, got, c.want)
		default:
			if p := SubsetProblems(got, c.result); len(p) > 0 {
				t.Errorf("%s: the rewrite leaves the subset: %v", c.name, p)
			}
		}
	}
	// The checker finds what the generator wrote.
	for in, want := range map[string]string{
		`{"type":"object","additionalProperties":false}`:                                     `keyword "additionalProperties"`,
		`{"type":"object","properties":{"a":{"type":["null","array"],"items":{}}}}`:          "no single type",
		`{"type":"object","properties":{"a":{"description":"x"}}}`:                           "no single type",
		`{"type":"object","properties":{"a":{"type":"array"}}}`:                              "an array argument without items",
		`{"type":"object","properties":{"a":{"type":"null"}}}`:                               `type "null"`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x","type":"string"}}}`:          `keyword "$ref"`,
		`{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}}}`:               "is not a string",
		`{"type":"object","properties":{"a":{"type":"string","anyOf":[{"type":"string"}]}}}`: "both a type and anyOf",
	} {
		var probs []string
		if err := json.Unmarshal([]byte(in), new(any)); err != nil {
			t.Fatal(err)
		}
		probs = SubsetProblems([]byte(in), false)
		if !strings.Contains(strings.Join(probs, "; "), want) {
			t.Errorf("%s: %v, want %q", in, probs, want)
		}
	}
}
