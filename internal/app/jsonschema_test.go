package app

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestPatchedJSONSchemaStillValidates: the copy in third_party compiles
// the drafts' metaschemas on first use instead of at start-up. A compiler
// must still check schemas against them, and compiled schemas must still
// validate, for whoever enables mcp-go's schema validation.
func TestPatchedJSONSchemaStillValidates(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("bad.json", map[string]any{"type": 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("bad.json"); err == nil || !strings.Contains(err.Error(), "type") {
		t.Fatalf("a schema breaking the metaschema compiled: %v", err)
	}
	if err := c.AddResource("args.json", map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": []any{"path"},
		"properties": map[string]any{"path": map[string]any{"type": "string", "minLength": 1}},
	}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("args.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(map[string]any{"path": "A.md"}); err != nil {
		t.Errorf("valid arguments refused: %v", err)
	}
	if err := sch.Validate(map[string]any{"path": ""}); err == nil {
		t.Error("an empty path passed minLength")
	}
	if err := sch.Validate(map[string]any{}); err == nil {
		t.Error("missing path passed required")
	}
}
