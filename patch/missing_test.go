package patch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// TestMissingNamesWhat: a heading, block or property the note lacks is an
// error of its own kind (not FILE_NOT_FOUND: the note is there), whose
// data names what was asked and lists what the note has.
func TestMissingNamesWhat(t *testing.T) {
	note := "---\nstatus: doing\ntags: [a]\n---\n# Plan\nintro ^p1\n## Risks\nfrost\n- [ ] one ^t1\n# Archive\n"
	cases := []struct {
		name   string
		target Target
		prop   string
		kind   errors.Kind
		want   string // the data, errorCode and hint aside
	}{
		{name: "heading", target: Target{Heading: "Plan > Team"}, kind: errors.HeadingNotFound,
			want: `{"heading":"Plan > Team","headings":["Plan","Plan > Risks","Archive"]}`},
		{name: "block", target: Target{Block: "^nope"}, kind: errors.BlockNotFound,
			want: `{"block":"nope","blocks":["p1","t1"]}`},
		{name: "property", prop: "Status", kind: errors.PropertyNotFound,
			want: `{"properties":["status","tags"],"property":"Status"}`},
	}
	for _, c := range cases {
		var err error
		if c.prop != "" {
			_, err = ApplyProperty([]byte(note), c.prop, Replace, "x", false)
		} else {
			_, err = Apply([]byte(note), c.target, Append, "x", false)
		}
		e := errors.From(err)
		if e.Kind != c.kind || e.Code() != -32010 {
			t.Errorf("%s: %s (%d) %v, want %s (-32010)", c.name, e.Kind, e.Code(), err, c.kind)
			continue
		}
		data := e.Data()
		hint, _ := data["hint"].(string)
		delete(data, "hint")
		delete(data, "errorCode")
		var got strings.Builder
		enc := json.NewEncoder(&got)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(data); err != nil || strings.TrimSpace(got.String()) != c.want {
			t.Errorf("%s: data %s, want %s", c.name, got.String(), c.want)
		}
		if hint == "" || strings.Contains(hint, "obsidian_get_outline") {
			t.Errorf("%s: hint %q", c.name, hint)
		}
	}
}

// TestMissingHeadingBounded: a note of thousands of headings lists the
// first of them, and says how many there are.
func TestMissingHeadingBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "# H%d\n", i)
	}
	_, err := Apply([]byte(b.String()), Target{Heading: "Nope"}, Append, "x", false)
	data := errors.From(err).Data()
	if hs, _ := data["headings"].([]string); len(hs) != listed || hs[0] != "H0" || data["headings_total"] != 1000 {
		t.Errorf("headings %d, total %v", len(hs), data["headings_total"])
	}
	if hint := data["hint"].(string); len(hint) > 1000 {
		t.Errorf("a hint of %d bytes", len(hint))
	}
}
