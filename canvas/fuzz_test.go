package canvas

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzCanvas: any canvas file is read to a canvas or an error, never a
// crash; its text index places every line on a line of the file; every
// node's group is a group node of the canvas.
func FuzzCanvas(f *testing.F) {
	f.Add([]byte(board))
	f.Add([]byte(`{"nodes":[{"id":"g","type":"group","x":0,"y":0,"width":10,"height":10},{"id":"t","type":"text","text":"a\nb","x":1,"y":1,"width":1,"height":1}],"edges":[]}`))
	f.Add([]byte(`{"nodes":[{"id" : "a\"b","type":"text","text":"x"}]}`))
	f.Add([]byte("{\"nodes\":[" + strings.Repeat(`{"id":"g","type":"group","x":0,"y":0,"width":1e308,"height":1e308},`, 50) + `{"id":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte{'\n'}) + 1
		_, lineOf := Text(data)
		for _, l := range lineOf[min(1, len(lineOf)):] {
			if l < 1 || l > lines {
				t.Fatalf("a text line placed on line %d of %d", l, lines)
			}
		}
		groups := map[string]bool{}
		for _, n := range c.Nodes {
			if n.Str("type") == "group" {
				groups[n.Str("id")] = true
			}
		}
		slow := everyPair(c)
		for i, g := range c.Groups() {
			if g != "" && !groups[g] {
				t.Fatalf("node %d in %q, which is no group", i, g)
			}
			if g != slow[i] {
				t.Fatalf("node %d in %q; comparing with every group says %q", i, g, slow[i])
			}
		}
	})
}
