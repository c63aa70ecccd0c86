package tools

import (
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

func TestGetProperties(t *testing.T) {
	t.Parallel()
	typed := "---\nstatus: done\ncount: 2\nok: false\ndue: 2026-11-23\ntags: [A, b]\naliases: [P]\n---\nbody #a #c\n"
	broken := "---\nx: [\n---\n#t"
	inline := "---\nrating: 4\n---\nStarted:: 2026-01-03\n**Pages read**:: 612\nLent to [[Marta]] on [lent:: 2026-03-20] (mood:: 😊)\n- [ ] read the sequel 📅 2026-12-01 [priority:: high]\n- a note (source:: [[Dune]])\n"
	cases := []toolCase{
		{name: "typed", args: `{"path":"P.md"}`, content: typed, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(typed)) + `","properties":[{"key":"status","type":"text","value":"done"},` +
				`{"key":"count","type":"number","value":2},{"key":"ok","type":"checkbox","value":false},{"key":"due","type":"date","value":"2026-11-23"},` +
				`{"key":"tags","type":"list","value":["A","b"]},{"key":"aliases","type":"list","value":["P"]}],"tags":["A","b","c"],"aliases":["P"]}}`},
		{name: "broken frontmatter", args: `{"path":"P.md"}`, content: broken, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(broken)) + `","properties":[],"tags":["t"],"aliases":[],` +
				`"frontmatter_error":"line 2: did not find expected node content"}}`},
		{name: "inline fields", args: `{"path":"P.md"}`, content: inline, wantCall: "Read path=P.md name=",
			wantData: `{"success":true,"data":{"path":"P.md","etag":"` + note.ETag([]byte(inline)) + `","properties":[{"key":"rating","type":"number","value":4}],"tags":[],"aliases":[],` +
				`"inline_fields":[{"key":"Started","value":"2026-01-03","line":4,"form":"line"},{"key":"Pages read","value":612,"line":5,"form":"line"},` +
				`{"key":"lent","value":"2026-03-20","line":6,"form":"[]"},{"key":"mood","value":"😊","line":6,"form":"()"},` +
				`{"key":"due","value":"2026-12-01","line":7,"form":"emoji","task":true},{"key":"priority","value":"high","line":7,"form":"[]","task":true},` +
				`{"key":"source","value":{"path":"Dune"},"line":8,"form":"()"}]}}`},
	}
	runCases(t, "obsidian_get_properties", append(cases, withCall(locatorCases(""), "Read path=a.md name=")...))
}
