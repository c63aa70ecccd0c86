package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"
)

type nnLeaf struct {
	Names []string `json:"names"`
	Maybe []string `json:"maybe,omitempty"`
}

type nnResult struct {
	Items  []nnLeaf           `json:"items"`
	Leaf   *nnLeaf            `json:"leaf"`
	Byname map[string]nnLeaf  `json:"byname"`
	Lists  [][]string         `json:"lists"`
	Free   any                `json:"free"`
	Raw    json.RawMessage    `json:"raw,omitempty"`
	Skip   []string           `json:"-"`
	Sets   map[string][]int   `json:"sets"`
	Opt    map[string]*nnLeaf `json:"opt,omitempty"`
}

// TestNonNull: a result's nil lists and maps go out as [] and {} wherever
// JSON would write them (not omitempty), at any depth, and the value the
// tool returned (which may share its lists with a cache) is not changed.
func TestNonNull(t *testing.T) {
	shared := []nnLeaf{{}, {Names: []string{"a"}}}
	in := nnResult{Items: shared, Leaf: &nnLeaf{}, Byname: map[string]nnLeaf{"k": {}}, Lists: [][]string{nil, {"x"}}, Free: []any(nil), Sets: map[string][]int{"s": nil}}
	out, err := json.Marshal(nonNull(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"items":[{"names":[]},{"names":["a"]}],"leaf":{"names":[]},"byname":{"k":{"names":[]}},"lists":[[],["x"]],"free":null,"sets":{"s":[]}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if shared[0].Names != nil || in.Leaf.Names != nil || in.Byname["k"].Names != nil || in.Lists[0] != nil {
		t.Error("the tool's own value was changed")
	}
	if out, _ := json.Marshal(nonNull(nnResult{})); string(out) != `{"items":[],"leaf":null,"byname":{},"lists":[],"free":null,"sets":{}}` {
		t.Errorf("zero value: %s", out)
	}
	// Nothing to fill: the value itself, not a copy.
	full := &nnLeaf{Names: []string{"a"}}
	if nonNull(full) != any(full) {
		t.Error("a value with nothing to fill was copied")
	}
}

// TestNullListsFitTheSchema: a tool whose result holds nil lists answers
// with structured content its own output schema accepts; without nonNull
// the lists are null, which the schema (a list, no null) refuses.
func TestNullListsFitTheSchema(t *testing.T) {
	s := spec[struct {
		Path string `json:"path,omitempty" jsonschema:"a path"`
	}, nnResult]{
		name: "obsidian_test_nulls", title: "Nulls", description: "A tool whose results hold nil lists, for the test.",
		run: func(context.Context, Vault, struct {
			Path string `json:"path,omitempty" jsonschema:"a path"`
		}) (nnResult, error) {
			return nnResult{Items: []nnLeaf{{}}}, nil
		},
	}
	st := s.build(Vault{}, validator.New())
	if p := SubsetProblems(st.Tool.RawOutputSchema, true); len(p) > 0 {
		t.Errorf("output schema: %s", strings.Join(p, "; "))
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = s.name
	req.Params.RawArguments = json.RawMessage(`{}`)
	res, err := st.Handler(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, st, res)
	// The check fails on a null list (the result as it was before).
	if outputMisfit(t, st, Envelope[nnResult]{Success: true, Data: nnResult{Items: []nnLeaf{{}}}}) == nil {
		t.Error("a result with null lists fits the schema: the check cannot fail")
	}
}
