package obsidiancli

import (
	"reflect"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// TestEntries: the undocumented listings (unresolved, tags, properties)
// are read in any of the plain shapes they could have, and anything else
// is a CLI_ERROR naming the command, never a silent empty answer.
func TestEntries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		out   string
		names []string
		count []int
		fail  bool
	}{
		{out: `["#a","#b/c"]`, names: []string{"#a", "#b/c"}, count: []int{1, 1}},
		{out: `[{"tag":"#a","count":3},{"name":"#b","count":1}]`, names: []string{"#a", "#b"}, count: []int{3, 1}},
		{out: `[]`, names: []string{}, count: []int{}},
		{out: `{"tag":"#a"}`, fail: true},
		{out: `[{"count":2}]`, fail: true},
		{out: `No tags found.`, fail: true},
	}
	for _, c := range cases {
		es, err := entries("tags", c.out, "tag", "name")
		if c.fail {
			if errors.From(err).Kind != errors.CLIError {
				t.Errorf("%s: %v, want CLI_ERROR", c.out, err)
			}
			continue
		}
		names, counts := []string{}, []int{}
		for _, e := range es {
			names, counts = append(names, e.name), append(counts, e.count)
		}
		if err != nil || !reflect.DeepEqual(names, c.names) || !reflect.DeepEqual(counts, c.count) {
			t.Errorf("%s: %q %v %v", c.out, names, counts, err)
		}
	}
}
