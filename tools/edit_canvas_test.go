package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

const testCanvas = "{\n\t\"nodes\":[\n" +
	"\t\t{\"id\":\"g\",\"type\":\"group\",\"x\":0,\"y\":0,\"width\":1000,\"height\":1000,\"label\":\"Plan\"},\n" +
	"\t\t{\"id\":\"a\",\"type\":\"text\",\"text\":\"Idea\",\"x\":10,\"y\":10,\"width\":250,\"height\":60},\n" +
	"\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Notes/A.md\",\"x\":2000,\"y\":0,\"width\":400,\"height\":400,\"color\":\"2\"}\n" +
	"\t],\n\t\"edges\":[\n" +
	"\t\t{\"id\":\"e\",\"fromNode\":\"a\",\"toNode\":\"f\",\"toEnd\":\"none\",\"label\":\"see\"}\n" +
	"\t]\n}"

func TestEditCanvas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, args string
		want       []string // lines the canvas holds after
		ids        int
		kind       errors.Kind
		fields     []string
	}{
		{name: "add a node and an edge to it, in one call",
			args: `{"path":"B.canvas","add":[{"id":"n","type":"text","text":"Next <step>"},{"fromNode":"a","toNode":"n","toSide":"top"}]}`,
			want: []string{`{"id":"n","type":"text","text":"Next <step>","x":0,"y":1040,"width":250,"height":60}`, `"fromNode":"a","toNode":"n","toSide":"top"}`}, ids: 2},
		{name: "update and remove",
			args: `{"path":"B.canvas","update":[{"id":"a","text":"Better idea","color":"5"}],"remove":["f"]}`,
			want: []string{`{"id":"a","type":"text","text":"Better idea","x":10,"y":10,"width":250,"height":60,"color":"5"}`, `"edges":[]`}},
		{name: "a bad item changes nothing and is named",
			args: `{"path":"B.canvas","add":[{"type":"text","text":"ok"},{"type":"note"}],"update":[{"id":"zz"}],"remove":["nope"]}`,
			kind: errors.InvalidParams, fields: []string{"add[1].type", "update[0].id", "remove[0]"}},
		{name: "not a canvas", args: `{"path":"B.md","remove":["a"]}`, kind: errors.InvalidParams, fields: []string{"path"}},
		{name: "nothing to do", args: `{"path":"B.canvas"}`, kind: errors.InvalidParams, fields: []string{"add"}},
		{name: "a null item", args: `{"path":"B.canvas","add":[null]}`, kind: errors.InvalidParams, fields: []string{"add[0]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fb := &fakeBackend{content: testCanvas}
			res, err := call(t, findTool(t, "obsidian_edit_canvas", fb), c.args)
			if c.kind != "" {
				checkErr(t, err, c.kind, c.fields, "")
				if fb.content != testCanvas {
					t.Errorf("a refused edit wrote %q", fb.content)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(fb.content, w) {
					t.Errorf("canvas lacks %s:\n%s", w, fb.content)
				}
			}
			var env struct{ Data canvasEdited }
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &env); err != nil || len(env.Data.IDs) != c.ids || !env.Data.Changed {
				t.Errorf("result %s", b)
			}
		})
	}
}

func TestEditCanvasCreates(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	res, err := call(t, findTool(t, "obsidian_edit_canvas", fb), `{"path":"New.canvas","create":true,"add":[{"type":"text","text":"first"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.calls) != 1 || !strings.HasPrefix(fb.calls[0], "Create {Path:New.canvas Name: Folder: Content:{\n\t\"nodes\":[\n\t\t{\"id\":\"") ||
		!strings.Contains(fb.calls[0], `"type":"text","text":"first","x":0,"y":0,"width":250,"height":60}`) {
		t.Errorf("calls %q", fb.calls)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"created":true`) {
		t.Errorf("result %s", b)
	}
	_, err = call(t, findTool(t, "obsidian_edit_canvas", fb), `{"name":"New.canvas","create":true}`)
	checkErr(t, err, errors.InvalidParams, []string{"path"}, "")
}

func TestReadCanvas(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{content: testCanvas}
	res, err := call(t, findTool(t, "obsidian_read_canvas", fb), `{"path":"B.canvas"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	for _, want := range []string{
		`{"id":"a","type":"text","text":"Idea","group":"g","x":10,"y":10,"width":250,"height":60}`,
		`{"id":"f","type":"file","file":"Notes/A.md","x":2000,"y":0,"width":400,"height":400,"color":"2"}`,
		`"edges":[{"id":"e","fromNode":"a","toNode":"f","toEnd":"none","label":"see"}]`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("read lacks %s:\n%s", want, b)
		}
	}
	fb = &fakeBackend{content: `{"nodes":[{"id":"t","type":"text","text":"` + strings.Repeat("é", maxCanvasText) + `","x":0,"y":0,"width":1,"height":1}]}`}
	res, err = call(t, findTool(t, "obsidian_read_canvas", fb), `{"path":"B.canvas"}`)
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Data canvasRead }
	b, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &env); err != nil || !env.Data.Nodes[0].Cut || len(*env.Data.Nodes[0].Text) > maxCanvasText {
		t.Errorf("a long text is not cut: %v %d", err, len(b))
	}
	fb = &fakeBackend{content: "# not a canvas"}
	_, err = call(t, findTool(t, "obsidian_read_canvas", fb), `{"path":"B.canvas"}`)
	checkErr(t, err, errors.Unsupported, nil, "not a JSON Canvas file")
}
