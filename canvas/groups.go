package canvas

import (
	"math"
	"slices"
	"sort"
)

// Groups gives, for every node (by index), the id of the smallest group
// that holds it whole, as Obsidian counts a node in a group, or "" (of
// groups of equal area, the first in the file).
//
// Comparing every node with every group made 10,000 nested groups take
// minutes, and a canvas of 100,000 groups would take hours. A group holds
// a box when its four edges lie outside the box's: with a group's edges
// as the point (left, top, −right, −bottom), the groups that hold a box
// are the points at or below the box's own in all four coordinates. So
// the groups go into a k-d tree over those points, each subtree keeping
// its smallest coordinates and the rank (by area) of its smallest group,
// and each node's search skips every subtree that cannot hold it or
// cannot beat the smallest group found so far. Nested groups and groups
// apart, the shapes canvases have, cost a few steps a node; no shape
// costs more than about n^¾ steps a node.
func (c *Canvas) Groups() []string {
	t := newGroupTree(c)
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		if q, ok := edgesOf(rect(n)); ok {
			if g := t.smallest(q, i); g >= 0 {
				out[i] = t.pts[g].id
			}
		}
	}
	return out
}

// groupPoint is a group as a point: its edges (left, top, −right,
// −bottom), its rank by area, its node index and id.
type groupPoint struct {
	k    [4]float64
	rank int
	node int
	id   string
}

// groupTree is a k-d tree kept in one slice: the subtree over pts[lo:hi]
// has its root at the middle, split on coordinate depth%4.
type groupTree struct {
	pts     []groupPoint
	mins    [][4]float64 // per root: the smallest coordinates of its subtree
	minRank []int        // per root: the smallest rank in its subtree
}

func newGroupTree(c *Canvas) *groupTree {
	var pts []groupPoint
	var area []float64
	for j, g := range c.Nodes {
		if g.Str("type") != "group" {
			continue
		}
		b := rect(g)
		if k, ok := edgesOf(b); ok {
			pts = append(pts, groupPoint{k: k, node: j, id: g.Str("id")})
			area = append(area, b.w*b.h)
		}
	}
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return area[order[a]] < area[order[b]] })
	for r, i := range order {
		pts[i].rank = r
	}
	t := &groupTree{pts: pts, mins: make([][4]float64, len(pts)), minRank: make([]int, len(pts))}
	t.build(0, len(pts), 0)
	return t
}

// build arranges pts[lo:hi] as a subtree and fills in its summary.
func (t *groupTree) build(lo, hi, depth int) {
	if lo >= hi {
		return
	}
	d := depth % 4
	part := t.pts[lo:hi]
	slices.SortFunc(part, func(a, b groupPoint) int {
		switch {
		case a.k[d] < b.k[d]:
			return -1
		case a.k[d] > b.k[d]:
			return 1
		}
		return 0
	})
	mid := (lo + hi) / 2
	t.build(lo, mid, depth+1)
	t.build(mid+1, hi, depth+1)
	m, r := t.pts[mid].k, t.pts[mid].rank
	for _, child := range [][2]int{{lo, mid}, {mid + 1, hi}} {
		if child[0] < child[1] {
			c := (child[0] + child[1]) / 2
			for i := range m {
				m[i] = min(m[i], t.mins[c][i])
			}
			r = min(r, t.minRank[c])
		}
	}
	t.mins[mid], t.minRank[mid] = m, r
}

// smallest is the index in pts of the smallest group holding the box q
// (as edgesOf gives it), other than node self, or -1.
func (t *groupTree) smallest(q [4]float64, self int) int {
	best, bestRank := -1, math.MaxInt
	var search func(lo, hi int)
	search = func(lo, hi int) {
		if lo >= hi {
			return
		}
		mid := (lo + hi) / 2
		if t.minRank[mid] >= bestRank {
			return
		}
		for i, m := range t.mins[mid] {
			if m > q[i] {
				return // no group in it reaches around the box
			}
		}
		p := t.pts[mid]
		if p.rank < bestRank && p.node != self && p.k[0] <= q[0] && p.k[1] <= q[1] && p.k[2] <= q[2] && p.k[3] <= q[3] {
			best, bestRank = mid, p.rank
		}
		// The subtree with the smaller group first: what it finds
		// prunes more of the other.
		a, b := [2]int{lo, mid}, [2]int{mid + 1, hi}
		if t.rankOf(b) < t.rankOf(a) {
			a, b = b, a
		}
		search(a[0], a[1])
		search(b[0], b[1])
	}
	search(0, len(t.pts))
	return best
}

// rankOf is the smallest rank in the subtree over pts[r[0]:r[1]].
func (t *groupTree) rankOf(r [2]int) int {
	if r[0] >= r[1] {
		return math.MaxInt
	}
	return t.minRank[(r[0]+r[1])/2]
}

// edgesOf is b as a point of the tree, if its numbers compare (NaN holds
// nothing and is held by nothing).
func edgesOf(b box) ([4]float64, bool) {
	k := [4]float64{b.x, b.y, -(b.x + b.w), -(b.y + b.h)}
	for _, v := range k {
		if math.IsNaN(v) {
			return k, false
		}
	}
	return k, true
}
