package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func TestGetProperties(t *testing.T) {
	t.Parallel()
	typed := "---\nstatus: done\ncount: 2\nok: false\ndue: 2026-11-23\ntags: [A, b]\naliases: [P]\n---\nbody #a #c\n"
	broken := "---\nx: [\n---\n#t"
	cases := []toolCase{
		{name: "typed", args: `{"path":"P.md"}`, content: typed, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(typed)) + `","properties":[{"key":"status","type":"text","value":"done"},` +
				`{"key":"count","type":"number","value":2},{"key":"ok","type":"checkbox","value":false},{"key":"due","type":"date","value":"2026-11-23"},` +
				`{"key":"tags","type":"list","value":["A","b"]},{"key":"aliases","type":"list","value":["P"]}],"tags":["A","b","c"],"aliases":["P"]}}`},
		{name: "broken frontmatter", args: `{"path":"P.md"}`, content: broken, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(broken)) + `","properties":[],"tags":["t"],"aliases":[],` +
				`"frontmatter_error":"line 2: did not find expected node content"}}`},
	}
	runCases(t, "obsidian_get_properties", append(cases, withCall(locatorCases(""), "Read path=a.md name=")...))
}
