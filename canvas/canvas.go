// Package canvas reads, changes and writes Obsidian canvases: JSON Canvas
// 1.0 files (.canvas) of nodes (text, file, link, group) and the edges
// between them, written as Obsidian writes them (one node or edge per
// line, tab-indented) and otherwise kept as they were: a key this package
// does not know survives a change.
//
// It does no I/O.
package canvas

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Ext is a canvas file's extension.
const Ext = ".canvas"

// Is reports whether p is a canvas, by its extension.
func Is(p string) bool { return strings.EqualFold(path.Ext(p), Ext) }

// Canvas is one canvas file.
type Canvas struct {
	Nodes []Object
	Edges []Object
	// top keeps the document's keys in order; its "nodes" and "edges"
	// are written from Nodes and Edges.
	top Object
}

// Parse reads a canvas; an empty file is an empty canvas, as Obsidian
// treats a new one.
func Parse(data []byte) (*Canvas, error) {
	c := &Canvas{}
	if len(bytes.TrimSpace(data[len(note.BOM(data)):])) == 0 {
		c.top.Set("nodes", json.RawMessage("[]"))
		c.top.Set("edges", json.RawMessage("[]"))
		return c, nil
	}
	if err := json.Unmarshal(data[len(note.BOM(data)):], &c.top); err != nil {
		return nil, fmt.Errorf("is not a JSON Canvas file: %v", err)
	}
	for _, part := range []struct {
		key  string
		into *[]Object
	}{{"nodes", &c.Nodes}, {"edges", &c.Edges}} {
		if raw := c.top.Raw(part.key); raw != nil && string(raw) != "null" {
			if err := json.Unmarshal(raw, part.into); err != nil {
				return nil, fmt.Errorf("is not a JSON Canvas file: its %s are not a list of objects", part.key)
			}
		} else {
			c.top.Set(part.key, json.RawMessage("[]"))
		}
	}
	return c, nil
}

// Marshal writes the canvas as Obsidian does: one node or edge per line.
func (c *Canvas) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range c.top.Keys() {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n\t")
		b.Write(encode(k))
		b.WriteString(":")
		var list []Object
		switch k {
		case "nodes":
			list = c.Nodes
		case "edges":
			list = c.Edges
		default:
			b.Write(c.top.Raw(k))
			continue
		}
		if len(list) == 0 {
			b.WriteString("[]")
			continue
		}
		b.WriteString("[")
		for j, o := range list {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n\t\t")
			line, _ := o.MarshalJSON()
			b.Write(line)
		}
		b.WriteString("\n\t]")
	}
	b.WriteString("\n}")
	return b.Bytes()
}

// Node finds a node by id.
func (c *Canvas) Node(id string) (int, bool) {
	for i, n := range c.Nodes {
		if n.Str("id") == id {
			return i, true
		}
	}
	return -1, false
}

func (c *Canvas) edge(id string) (int, bool) {
	for i, e := range c.Edges {
		if e.Str("id") == id {
			return i, true
		}
	}
	return -1, false
}

// NewID is an id as Obsidian makes them: 16 hex digits.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// IsEdge reports whether an item to add is an edge: it names the nodes
// it joins.
func IsEdge(o Object) bool { return o.Has("fromNode") || o.Has("toNode") }

// Default sizes of new nodes, Obsidian's.
var defaultSize = map[string][2]int{"text": {250, 60}, "file": {400, 400}, "link": {400, 400}, "group": {400, 400}}

// Add adds nodes and edges (an edge names fromNode and toNode), in
// order, so an edge may join nodes added before it. A new item without an
// id gets one; a node without a size gets Obsidian's default for its type,
// and one without a place goes below everything on the canvas. It returns
// the ids, or what is wrong with each item (field "add[i].key").
func (c *Canvas) Add(items []Object) ([]string, []errors.Field) {
	var ids []string
	var bad []errors.Field
	for i, it := range items {
		at := fmt.Sprintf("add[%d]", i)
		id := it.Str("id")
		if !it.Has("id") {
			id = NewID()
		}
		if _, n := c.Node(id); n {
			bad = append(bad, errors.Field{Field: at + ".id", Message: fmt.Sprintf("%q is already a node of the canvas; leave id out for a new one", id)})
			continue
		}
		if _, e := c.edge(id); e {
			bad = append(bad, errors.Field{Field: at + ".id", Message: fmt.Sprintf("%q is already an edge of the canvas; leave id out for a new one", id)})
			continue
		}
		var o Object
		if IsEdge(it) {
			o = ordered(it, id, []string{"fromNode", "fromSide", "fromEnd", "toNode", "toSide", "toEnd"}, []string{"color", "label"})
			if f := c.checkEdge(at, o); f != nil {
				bad = append(bad, f...)
				continue
			}
			c.Edges = append(c.Edges, o)
		} else {
			o = ordered(it, id, []string{"type", "text", "file", "subpath", "url", "label", "background", "backgroundStyle"}, []string{"x", "y", "width", "height", "color"})
			c.place(&o)
			if f := checkNode(at, o); f != nil {
				bad = append(bad, f...)
				continue
			}
			c.Nodes = append(c.Nodes, o)
		}
		ids = append(ids, id)
	}
	return ids, bad
}

// ordered is item with id first, then the keys of first and of last in
// their order, with every other key of item between them.
func ordered(item Object, id string, first, last []string) Object {
	var o Object
	o.Set("id", id)
	for _, k := range first {
		if item.Has(k) {
			o.Set(k, item.Raw(k))
		}
	}
	for _, k := range item.Keys() {
		if k != "id" && !slices.Contains(first, k) && !slices.Contains(last, k) {
			o.Set(k, item.Raw(k))
		}
	}
	for _, k := range last {
		if item.Has(k) {
			o.Set(k, item.Raw(k))
		}
	}
	return o
}

// place gives a node without a size its type's default, and one without
// a place a spot 40 below the lowest node, at the leftmost node's x.
func (c *Canvas) place(o *Object) {
	size, ok := defaultSize[o.Str("type")]
	if !ok {
		return
	}
	for i, k := range []string{"width", "height"} {
		if !o.Has(k) {
			o.Set(k, size[i])
		}
	}
	if o.Has("x") && o.Has("y") {
		return
	}
	x, y := 0.0, 0.0
	if len(c.Nodes) > 0 {
		x, y = math.Inf(1), math.Inf(-1)
		for _, n := range c.Nodes {
			r := rect(n)
			x, y = math.Min(x, r.x), math.Max(y, r.y+r.h+40)
		}
	}
	// The geometry goes before color and any later key, as Obsidian
	// writes it.
	rest := Object{}
	for _, k := range o.Keys() {
		if k == "color" {
			rest.Set(k, o.Raw(k))
			o.Delete(k)
		}
	}
	w, h := o.Raw("width"), o.Raw("height")
	o.Delete("width")
	o.Delete("height")
	if !o.Has("x") {
		setCoord(o, "x", x)
	}
	if !o.Has("y") {
		setCoord(o, "y", y)
	}
	o.Set("width", w)
	o.Set("height", h)
	for _, k := range rest.Keys() {
		o.Set(k, rest.Raw(k))
	}
}

// maxCoord bounds a coordinate or size: the integers JavaScript, and so
// Obsidian, holds exactly.
const maxCoord = 1 << 53

// setCoord sets a place computed from the other nodes: as an integer, or,
// past maxCoord, as it is, for checkNode to refuse (int() of such a float
// gave a new node x = -9223372036854775808).
func setCoord(o *Object, k string, v float64) {
	if math.Abs(v) <= maxCoord {
		o.Set(k, int64(v))
		return
	}
	o.Set(k, v)
}

// shared says why id cannot name one item, when more than one node or
// edge of the canvas has it ("" when one or none does).
func (c *Canvas) shared(id string) string {
	n := 0
	for _, o := range c.Nodes {
		if o.Str("id") == id {
			n++
		}
	}
	for _, o := range c.Edges {
		if o.Str("id") == id {
			n++
		}
	}
	if n < 2 {
		return ""
	}
	return fmt.Sprintf("%q is the id of %d items of this canvas, so it names none of them; give each its own id in the canvas file (obsidian_replace_in_note on its JSON), then try again", id, n)
}

// Update changes nodes and edges: each item names its id, and its other
// keys are set (null removes one). The changed item must still be valid.
func (c *Canvas) Update(items []Object) []errors.Field {
	var bad []errors.Field
	for i, it := range items {
		at := fmt.Sprintf("update[%d]", i)
		id, _ := it.String("id")
		target := (*Object)(nil)
		isEdge := false
		if why := c.shared(id); why != "" {
			bad = append(bad, errors.Field{Field: at + ".id", Message: why})
			continue
		}
		if n, ok := c.Node(id); ok {
			target = &c.Nodes[n]
		} else if e, ok := c.edge(id); ok {
			target, isEdge = &c.Edges[e], true
		} else {
			bad = append(bad, errors.Field{Field: at + ".id", Message: fmt.Sprintf("%q is no node or edge of the canvas; read it with obsidian_read_canvas for the ids", id)})
			continue
		}
		o := *target
		o.keys, o.vals = slices.Clone(o.keys), maps.Clone(o.vals)
		for _, k := range it.Keys() {
			if k == "id" {
				continue
			}
			if string(it.Raw(k)) == "null" {
				o.Delete(k)
			} else {
				o.Set(k, it.Raw(k))
			}
		}
		var f []errors.Field
		if isEdge {
			f = c.checkEdge(at, o)
		} else {
			f = checkNode(at, o)
		}
		if f != nil {
			bad = append(bad, f...)
			continue
		}
		*target = o
	}
	return bad
}

// Remove removes nodes and edges by id; a node's edges go with it, as in
// Obsidian. It returns how many edges went with their nodes.
func (c *Canvas) Remove(ids []string) (int, []errors.Field) {
	var bad []errors.Field
	gone := map[string]bool{}
	for i, id := range ids {
		_, n := c.Node(id)
		_, e := c.edge(id)
		if !n && !e {
			bad = append(bad, errors.Field{Field: fmt.Sprintf("remove[%d]", i), Message: fmt.Sprintf("%q is no node or edge of the canvas", id)})
		} else if why := c.shared(id); why != "" {
			bad = append(bad, errors.Field{Field: fmt.Sprintf("remove[%d]", i), Message: why})
		}
		gone[id] = true
	}
	if bad != nil {
		return 0, bad
	}
	c.Nodes = slices.DeleteFunc(c.Nodes, func(o Object) bool { return gone[o.Str("id")] })
	dropped := 0
	c.Edges = slices.DeleteFunc(c.Edges, func(o Object) bool {
		if gone[o.Str("id")] {
			return true
		}
		if gone[o.Str("fromNode")] || gone[o.Str("toNode")] {
			dropped++
			return true
		}
		return false
	})
	return dropped, nil
}

var (
	hexColor = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	sides    = []string{"top", "right", "bottom", "left"}
	ends     = []string{"none", "arrow"}
)

func checkNode(at string, o Object) []errors.Field {
	var bad []errors.Field
	fail := func(k, msg string) { bad = append(bad, errors.Field{Field: at + "." + k, Message: msg}) }
	if id, ok := o.String("id"); !ok || id == "" {
		fail("id", "must be a non-empty string")
	}
	typ, _ := o.String("type")
	if _, ok := defaultSize[typ]; !ok {
		fail("type", "must be text, file, link or group (an edge gives fromNode and toNode instead)")
		return bad
	}
	for _, k := range []string{"x", "y", "width", "height"} {
		v, ok := o.Number(k)
		switch {
		case !ok:
			fail(k, "must be a number (pixels)")
		case (k == "width" || k == "height") && v <= 0:
			fail(k, "must be more than 0")
		case math.Abs(v) > maxCoord:
			fail(k, "must be within ±9007199254740992 pixels (the integers JavaScript holds exactly); give the new node its own x and y if the canvas's others lie that far")
		}
	}
	need := map[string]string{"text": "text", "file": "file", "link": "url"}[typ]
	if need != "" {
		if s, ok := o.String(need); !ok || need != "text" && s == "" {
			fail(need, fmt.Sprintf("a %s node needs %s, a string", typ, need))
		}
	}
	if f, ok := o.String("file"); ok && typ == "file" {
		if msg := note.CheckPath(f); msg != "" {
			fail("file", "is the vault-relative path of the file shown: it "+msg)
		}
	}
	if s, ok := o.String("subpath"); o.Has("subpath") && (!ok || !strings.HasPrefix(s, "#")) {
		fail("subpath", "must start with # (a heading or #^block)")
	}
	for _, k := range []string{"label", "background"} {
		if _, ok := o.String(k); o.Has(k) && !ok {
			fail(k, "must be a string")
		}
	}
	if s, _ := o.String("backgroundStyle"); o.Has("backgroundStyle") && !slices.Contains([]string{"cover", "ratio", "repeat"}, s) {
		fail("backgroundStyle", "must be cover, ratio or repeat")
	}
	checkColor(o, fail)
	return bad
}

func (c *Canvas) checkEdge(at string, o Object) []errors.Field {
	var bad []errors.Field
	fail := func(k, msg string) { bad = append(bad, errors.Field{Field: at + "." + k, Message: msg}) }
	if id, ok := o.String("id"); !ok || id == "" {
		fail("id", "must be a non-empty string")
	}
	for _, k := range []string{"fromNode", "toNode"} {
		id, _ := o.String(k)
		if _, ok := c.Node(id); !ok {
			fail(k, fmt.Sprintf("%q is no node of the canvas (add the node first, in the same call or before)", id))
		}
	}
	for _, k := range []string{"fromSide", "toSide"} {
		if s, _ := o.String(k); o.Has(k) && !slices.Contains(sides, s) {
			fail(k, "must be top, right, bottom or left")
		}
	}
	for _, k := range []string{"fromEnd", "toEnd"} {
		if s, _ := o.String(k); o.Has(k) && !slices.Contains(ends, s) {
			fail(k, "must be none or arrow")
		}
	}
	if _, ok := o.String("label"); o.Has("label") && !ok {
		fail("label", "must be a string")
	}
	checkColor(o, fail)
	return bad
}

func checkColor(o Object, fail func(k, msg string)) {
	if !o.Has("color") {
		return
	}
	s, _ := o.String("color")
	if !hexColor.MatchString(s) && (len(s) != 1 || s[0] < '1' || s[0] > '6') {
		fail("color", `must be "1" to "6" (red, orange, yellow, green, cyan, purple) or a hex color such as "#FF8800"`)
	}
}

type box struct{ x, y, w, h float64 }

func rect(o Object) box {
	x, _ := o.Number("x")
	y, _ := o.Number("y")
	w, _ := o.Number("width")
	h, _ := o.Number("height")
	return box{x, y, w, h}
}

func (b box) holds(o box) bool {
	return o.x >= b.x && o.y >= b.y && o.x+o.w <= b.x+b.w && o.y+o.h <= b.y+b.h
}
