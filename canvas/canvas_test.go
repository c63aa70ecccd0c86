package canvas

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// As Obsidian writes a canvas; the "extra" keys are a plugin's.
const board = "{\n\t\"nodes\":[\n" +
	"\t\t{\"id\":\"g1\",\"type\":\"group\",\"x\":-100,\"y\":-100,\"width\":900,\"height\":500,\"label\":\"Q4 <plan> & more\"},\n" +
	"\t\t{\"id\":\"t1\",\"type\":\"text\",\"text\":\"# Goals\\nShip [[Plan]] \\u00e9t\\u00e9\",\"x\":-80,\"y\":-80,\"width\":250,\"height\":60,\"color\":\"4\"},\n" +
	"\t\t{\"id\":\"f1\",\"type\":\"file\",\"file\":\"Projects/Plan.md\",\"subpath\":\"#Risks\",\"x\":300,\"y\":-80,\"width\":400,\"height\":400,\"extra\":{\"a\":[1,2]}},\n" +
	"\t\t{\"id\":\"l1\",\"type\":\"link\",\"url\":\"https://obsidian.md\",\"x\":1000,\"y\":0,\"width\":400,\"height\":400}\n" +
	"\t],\n\t\"edges\":[\n" +
	"\t\t{\"id\":\"e1\",\"fromNode\":\"t1\",\"fromSide\":\"right\",\"toNode\":\"f1\",\"toSide\":\"left\",\"toEnd\":\"none\"}\n" +
	"\t],\n\t\"meta\":{\"v\":1}\n}"

func items(t *testing.T, js string) []Object {
	t.Helper()
	var out []Object
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	c, err := Parse([]byte(board))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.Marshal()); got != board {
		t.Errorf("written again:\n%s\nwant\n%s", got, board)
	}
	for _, empty := range []string{"", " \n", "\ufeff"} {
		c, err := Parse([]byte(empty))
		if err != nil || string(c.Marshal()) != "{\n\t\"nodes\":[],\n\t\"edges\":[]\n}" {
			t.Errorf("empty file %q: %v %q", empty, err, c.Marshal())
		}
	}
	for _, bad := range []string{"[1]", `{"nodes":{}}`, `{"nodes":[1]}`, "{"} {
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "not a JSON Canvas file") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestAdd(t *testing.T) {
	c, _ := Parse([]byte(board))
	ids, bad := c.Add(items(t, `[
		{"id":"t2","type":"text","text":"Next","color":"#FF8800"},
		{"id":"e2","fromNode":"t2","toNode":"l1","label":"see"},
		{"type":"file","file":"Notes/A.md","x":5,"y":6}]`))
	if bad != nil || len(ids) != 3 || ids[0] != "t2" || ids[1] != "e2" || len(ids[2]) != 16 {
		t.Fatalf("ids %v, problems %v", ids, bad)
	}
	out := string(c.Marshal())
	for _, want := range []string{
		// below the lowest node (l1: 0+400), at the leftmost x (g1: -100)
		`{"id":"t2","type":"text","text":"Next","x":-100,"y":440,"width":250,"height":60,"color":"#FF8800"}`,
		`{"id":"e2","fromNode":"t2","toNode":"l1","label":"see"}`,
		`"type":"file","file":"Notes/A.md","x":5,"y":6,"width":400,"height":400}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	_, bad = c.Add(items(t, `[
		{"id":"t1","type":"text","text":"dup"},
		{"type":"card"},
		{"type":"text"},
		{"type":"file","file":"../x.md","width":0,"color":"7","subpath":"Risks"},
		{"type":"link","url":""},
		{"fromNode":"t1","toNode":"nope","fromSide":"middle","toEnd":"both"},
		{"type":"group","backgroundStyle":"tile","label":3}]`))
	want := []string{"add[0].id", "add[1].type", "add[2].text", "add[3].width", "add[3].file", "add[3].subpath", "add[3].color",
		"add[4].url", "add[5].toNode", "add[5].fromSide", "add[5].toEnd", "add[6].label", "add[6].backgroundStyle"}
	var got []string
	for _, f := range bad {
		got = append(got, f.Field)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems %v\nwant %v", got, want)
	}
}

func TestUpdateRemove(t *testing.T) {
	c, _ := Parse([]byte(board))
	if bad := c.Update(items(t, `[{"id":"t1","text":"Done","color":null},{"id":"e1","label":"next"}]`)); bad != nil {
		t.Fatal(bad)
	}
	out := string(c.Marshal())
	for _, want := range []string{`{"id":"t1","type":"text","text":"Done","x":-80,"y":-80,"width":250,"height":60}`,
		`{"id":"e1","fromNode":"t1","fromSide":"right","toNode":"f1","toSide":"left","toEnd":"none","label":"next"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	bad := c.Update(items(t, `[{"id":"zz","text":"x"},{"id":"t1","type":"blob"},{"id":"e1","toNode":"gone"}]`))
	if len(bad) != 3 || bad[0].Field != "update[0].id" || bad[1].Field != "update[1].type" || bad[2].Field != "update[2].toNode" {
		t.Errorf("problems %v", bad)
	}
	if n, _ := c.Node("t1"); c.Nodes[n].Str("type") != "text" {
		t.Error("a refused update changed the node")
	}
	if _, bad := c.Remove([]string{"t1", "nope"}); len(bad) != 1 || bad[0].Field != "remove[1]" || len(c.Nodes) != 4 {
		t.Errorf("remove of an unknown id: %v, %d nodes left", bad, len(c.Nodes))
	}
	dropped, bad := c.Remove([]string{"t1"})
	if bad != nil || dropped != 1 || len(c.Nodes) != 3 || len(c.Edges) != 0 {
		t.Errorf("remove t1: %d edges dropped, %v; %d nodes, %d edges left", dropped, bad, len(c.Nodes), len(c.Edges))
	}
}

func TestGroups(t *testing.T) {
	c, _ := Parse([]byte(board))
	want := []string{"", "g1", "g1", ""} // l1 sticks out of the group
	got := c.Groups()
	for i := range c.Nodes {
		if got[i] != want[i] {
			t.Errorf("node %d in %q, want %q", i, got[i], want[i])
		}
	}
}

// TestLargeCanvasesStayLinear: 20,000 nodes and 5,000 nested groups, the
// shapes that took minutes (the text index looked each node's id up from
// the start of the file; groups were read again for every node). Their
// text and groups come out whole and right; how fast is for benchmarks,
// not for a test.
func TestLargeCanvasesStayLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"nodes\":[\n")
	const groups, texts = 5000, 20000
	for i := range groups {
		// Nested: each group holds the next, smaller one.
		fmt.Fprintf(&b, "{\"id\":\"g%d\",\"type\":\"group\",\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d,\"label\":\"G%d\"},\n", i, i, i, 2*(groups-i)+40, 2*(groups-i)+40, i)
	}
	for i := range texts {
		sep := ","
		if i == texts-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "{\"id\":\"t%d\",\"type\":\"text\",\"text\":\"note %d\",\"x\":%d,\"y\":%d,\"width\":1,\"height\":1}%s\n", i, i, groups, groups, sep)
	}
	b.WriteString("],\"edges\":[]}\n")
	c, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	g := c.Groups()
	if g[groups] != fmt.Sprintf("g%d", groups-1) || g[1] != "g0" || g[0] != "" {
		t.Errorf("groups: text 0 in %q, g1 in %q, g0 in %q", g[groups], g[1], g[0])
	}
	text, lineOf := Text([]byte(b.String()))
	if n := strings.Count(string(text), "note "); n != texts {
		t.Errorf("%d text nodes in the text, want %d", n, texts)
	}
	if last := lineOf[len(lineOf)-1]; last != groups+texts+1 {
		t.Errorf("the last node is placed on line %d, want %d", last, groups+texts+1)
	}
}

func TestText(t *testing.T) {
	text, lineOf := Text([]byte(board))
	want := "Q4 <plan> & more\n\n# Goals\nShip [[Plan]] été\n\n![[Projects/Plan.md#Risks]]\n\nhttps://obsidian.md\n\n"
	if string(text) != want {
		t.Errorf("text %q\nwant %q", text, want)
	}
	if wantLines := []int{0, 3, 3, 4, 4, 4, 5, 5, 6, 6}; !reflect.DeepEqual(lineOf, wantLines) {
		t.Errorf("lines %v, want %v", lineOf, wantLines)
	}
	if text, _ := Text([]byte("not json")); text != nil {
		t.Errorf("not a canvas: %q", text)
	}
}

func TestRetarget(t *testing.T) {
	out, n := Retarget([]byte(board), map[string]string{"Projects/Plan.md": "Archive/Plan.md"}, func(text []byte) ([]byte, int) {
		return []byte(strings.ReplaceAll(string(text), "[[Plan]]", "[[Archive/Plan]]")), strings.Count(string(text), "[[Plan]]")
	})
	if n != 2 || !strings.Contains(string(out), `"file":"Archive/Plan.md","subpath":"#Risks"`) || !strings.Contains(string(out), `Ship [[Archive/Plan]] été`) {
		t.Errorf("%d changes:\n%s", n, out)
	}
	if out, n := Retarget([]byte(board), map[string]string{"Other.md": "X.md"}, func(text []byte) ([]byte, int) { return text, 0 }); n != 0 || string(out) != board {
		t.Errorf("nothing to change, yet %d changes", n)
	}
}

// TestFarNodesAreNotWrappedAround: a node placed below others that lie
// past what JavaScript holds exactly is refused, naming the field, instead
// of getting x = -9223372036854775808 from an overflowing conversion.
func TestFarNodesAreNotWrappedAround(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`{"nodes":[{"id":"far","type":"text","text":"a","x":1e19,"y":3e19,"width":250,"height":60}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	ids, bad := c.Add(items(t, `[{"type":"text","text":"b"}]`))
	if len(ids) != 0 || len(bad) == 0 || bad[0].Field != "add[0].x" || !strings.Contains(bad[0].Message, "within ±9007199254740992") {
		t.Errorf("ids %v, bad %+v", ids, bad)
	}
	if strings.Contains(string(c.Marshal()), "-9223372036854775808") {
		t.Errorf("wrapped around:\n%s", c.Marshal())
	}
	ids, bad = c.Add(items(t, `[{"type":"text","text":"b","x":0,"y":0}]`))
	if len(ids) != 1 || bad != nil {
		t.Errorf("a node with its own place: ids %v, bad %+v", ids, bad)
	}
}

// TestSharedIDsNameNothing: an id two items share is refused by update
// and remove, and nothing changes (update changed the first, remove
// deleted both).
func TestSharedIDsNameNothing(t *testing.T) {
	t.Parallel()
	const twice = `{"nodes":[{"id":"a","type":"text","text":"one","x":0,"y":0,"width":250,"height":60},{"id":"a","type":"text","text":"two","x":0,"y":100,"width":250,"height":60}],"edges":[]}`
	c, err := Parse([]byte(twice))
	if err != nil {
		t.Fatal(err)
	}
	before := string(c.Marshal())
	if bad := c.Update(items(t, `[{"id":"a","text":"three"}]`)); len(bad) != 1 || !strings.Contains(bad[0].Message, "is the id of 2 items") {
		t.Errorf("update: %+v", bad)
	}
	if _, bad := c.Remove([]string{"a"}); len(bad) != 1 || bad[0].Field != "remove[0]" || !strings.Contains(bad[0].Message, "is the id of 2 items") {
		t.Errorf("remove: %+v", bad)
	}
	if got := string(c.Marshal()); got != before {
		t.Errorf("the canvas changed:\n%s", got)
	}
}
