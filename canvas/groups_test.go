package canvas

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestGroupsAsEveryPairWouldSay: on canvases of random boxes (overlapping,
// nested, equal, touching, of zero size), the tree gives each node the
// group that comparing it with every group gives.
func TestGroupsAsEveryPairWouldSay(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var b strings.Builder
		b.WriteString(`{"nodes":[`)
		n := 1 + r.IntN(60)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			kind := "text"
			if r.IntN(2) == 0 {
				kind = "group"
			}
			// Few distinct numbers, so edges meet and boxes repeat.
			x, y := r.IntN(8)*10, r.IntN(8)*10
			w, h := r.IntN(6)*10, r.IntN(6)*10
			fmt.Fprintf(&b, `{"id":"n%d","type":%q,"x":%d,"y":%d,"width":%d,"height":%d}`, i, kind, x, y, w, h)
		}
		b.WriteString(`],"edges":[]}`)
		c, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		got, want := c.Groups(), everyPair(c)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d, node %d: in %q, comparing with every group says %q\n%s", round, i, got[i], want[i], b.String())
			}
		}
	}
}

// everyPair is Groups the slow way: every node against every group,
// smallest group first.
func everyPair(c *Canvas) []string {
	type group struct {
		i    int
		id   string
		b    box
		area float64
	}
	var groups []group
	for j, g := range c.Nodes {
		if g.Str("type") == "group" {
			b := rect(g)
			groups = append(groups, group{j, g.Str("id"), b, b.w * b.h})
		}
	}
	sort.SliceStable(groups, func(a, b int) bool { return groups[a].area < groups[b].area })
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		r := rect(n)
		for _, g := range groups {
			if g.i != i && g.b.holds(r) {
				out[i] = g.id
				break
			}
		}
	}
	return out
}

// BenchmarkGroups: 20,000 groups nested, apart, or at random, with as
// many text nodes; the tree beside comparing every pair (nested, the
// shape that took minutes).
func BenchmarkGroups(b *testing.B) {
	const n = 20000
	shapes := map[string]func(i int) (x, y, w int){
		"nested": func(i int) (int, int, int) { return i, i, 2*(n-i) + 40 },
		"apart":  func(i int) (int, int, int) { return (i % 200) * 100, (i / 200) * 100, 90 },
		"random": func(i int) (int, int, int) { return (i * 7919) % 50000, (i * 104729) % 50000, 100 + (i*31)%5000 },
	}
	for _, name := range []string{"nested", "apart", "random"} {
		shape := shapes[name]
		var s strings.Builder
		s.WriteString(`{"nodes":[`)
		for i := range n {
			x, y, w := shape(i)
			fmt.Fprintf(&s, `{"id":"g%d","type":"group","x":%d,"y":%d,"width":%d,"height":%d},`, i, x, y, w, w)
			fmt.Fprintf(&s, `{"id":"t%d","type":"text","x":%d,"y":%d,"width":1,"height":1},`, i, x+w/2, y+w/2)
		}
		s.WriteString(`{"id":"last","type":"text","x":0,"y":0,"width":1,"height":1}],"edges":[]}`)
		c, err := Parse([]byte(s.String()))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/tree", func(b *testing.B) {
			for b.Loop() {
				c.Groups()
			}
		})
		b.Run(name+"/every-pair", func(b *testing.B) {
			for b.Loop() {
				everyPair(c)
			}
		})
	}
}
