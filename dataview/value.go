// Package dataview answers Dataview's query language (DQL) and inline
// expressions over a vault's pages the way the Dataview plugin (0.5.70)
// answers them: the same parser, the same null and vectorisation rules,
// the same functions, the same ordering, the same Markdown.
//
// A value is one of: nil, bool, float64, string, time.Time (a date, in
// its own zone), Duration, *Link, []any, *Object, *Lambda or a widget
// (ListPair, ExternalLink). The engine knows nothing of MCP or files: it
// is fed Pages and answers values.
package dataview

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// Link is Obsidian's link to a file, a heading in it or a block.
type Link struct {
	Path    string
	Display string // "" when none
	Subpath string // the heading (normalised) or the block id
	Embed   bool
	Type    string // "file", "header" or "block"
}

// FileLink is a link to a whole file.
func FileLink(path string) *Link { return &Link{Path: path, Type: "file"} }

// inferLink reads "path#heading", "path#^block" or "path".
func inferLink(linkpath string, embed bool, display string) *Link {
	if p, b, ok := strings.Cut(linkpath, "#^"); ok {
		b, _, _ = strings.Cut(b, "#^")
		return &Link{Path: p, Subpath: b, Type: "block", Embed: embed, Display: display}
	}
	if p, h, ok := strings.Cut(linkpath, "#"); ok {
		h, _, _ = strings.Cut(h, "#")
		return &Link{Path: p, Subpath: normalizeHeaderForLink(h), Type: "header", Embed: embed, Display: display}
	}
	return &Link{Path: linkpath, Type: "file", Embed: embed, Display: display}
}

func (l *Link) withPath(p string) *Link { c := *l; c.Path = p; return &c }

func (l *Link) withDisplay(d string) *Link { c := *l; c.Display = d; return &c }

func (l *Link) withEmbed(e bool) *Link {
	if l.Embed == e {
		return l
	}
	c := *l
	c.Embed = e
	return &c
}

// obsidianLink is the inside of the brackets Obsidian opens.
func (l *Link) obsidianLink() string {
	esc := strings.ReplaceAll(l.Path, "|", "\\|")
	switch l.Type {
	case "header":
		return esc + "#" + strings.ReplaceAll(l.Subpath, "|", "\\|")
	case "block":
		return esc + "#^" + strings.ReplaceAll(l.Subpath, "|", "\\|")
	}
	return esc
}

// Markdown is the link as Dataview writes it: [[path|display]].
func (l *Link) Markdown() string {
	var b strings.Builder
	if l.Embed {
		b.WriteByte('!')
	}
	b.WriteString("[[")
	b.WriteString(l.obsidianLink())
	b.WriteByte('|')
	if l.Display != "" {
		b.WriteString(l.Display)
	} else {
		b.WriteString(fileTitle(l.Path))
		if l.Type == "header" || l.Type == "block" {
			b.WriteString(" > " + l.Subpath)
		}
	}
	b.WriteString("]]")
	return b.String()
}

func (l *Link) equals(o *Link) bool {
	return o != nil && l.Path == o.Path && l.Type == o.Type && l.Subpath == o.Subpath
}

// Object is a JavaScript object: keys in JavaScript's order (integer keys
// ascending first, then the rest as inserted). Its keys and values are
// slices, searched in order (a page's objects have a few dozen keys at
// most; a map each would cost more memory than the page), with an index
// made once an object grows large. An object may lie over a base
// (overlay): it reads through to it and keeps only what is set on it, so
// that FLATTEN's thousand rows of one page share the page.
type Object struct {
	keys  []string       // own keys, in order; with a base, only those not in it
	vals  []any          // by key
	shade map[string]any // values set on an overlay for keys of its base
	index map[string]int // key → position, for large objects
	base  *Object
	// fill makes a value when it is first read (a page's values are made
	// only for the keys a query reads); unmade values hold unmade.
	fill filler
}

// A filler makes a lazy object's values.
type filler interface{ fill(k string) any }

// fillFunc is a function as a filler.
type fillFunc func(k string) any

func (f fillFunc) fill(k string) any { return f(k) }

// unmade marks a value of a lazy object not made yet.
type unmadeT struct{}

var unmade any = unmadeT{}

// lazyObject is an object of known keys whose values fill makes on
// first read.
func lazyObject(keys []string, fill func(k string) any) *Object {
	o := &Object{}
	o.makeLazy(keys, fillFunc(fill))
	return o
}

// makeLazy makes o an object of keys whose values f makes on first read.
func (o *Object) makeLazy(keys []string, f filler) {
	*o = Object{keys: keys, vals: make([]any, len(keys)), fill: f}
	for i := range o.vals {
		o.vals[i] = unmade
	}
	o.reindex()
}

// indexAt is when an object's keys get an index.
const indexAt = 48

// NewObject makes an empty object.
func NewObject() *Object { return &Object{} }

// overlay is a copy of o that costs what is set on it.
func (o *Object) overlay() *Object { return &Object{base: o} }

func (o *Object) own(k string) int {
	if o.index != nil {
		if i, ok := o.index[k]; ok {
			return i
		}
		return -1
	}
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// Set puts a key, keeping the order of an existing one.
func (o *Object) Set(k string, v any) {
	if i := o.own(k); i >= 0 {
		o.vals[i] = v
		return
	}
	if o.base != nil && o.base.Has(k) {
		if o.shade == nil {
			o.shade = map[string]any{}
		}
		o.shade[k] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[k] = len(o.keys) - 1
	} else if len(o.keys) >= indexAt {
		o.reindex()
	}
	if isArrayIndex(k) {
		o.sortIndexKeys()
	}
}

func (o *Object) reindex() {
	if len(o.keys) < indexAt {
		o.index = nil
		return
	}
	o.index = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.index[k] = i
	}
}

// Get reads a key: nil and false when it is not there.
func (o *Object) Get(k string) (any, bool) {
	for ; o != nil; o = o.base {
		if i := o.own(k); i >= 0 {
			if o.vals[i] == unmade {
				o.vals[i] = o.fill.fill(k)
			}
			return o.vals[i], true
		}
		if v, ok := o.shade[k]; ok {
			return v, true
		}
	}
	return nil, false
}

// Has says whether k is a key.
func (o *Object) Has(k string) bool { _, ok := o.Get(k); return ok }

// Keys are the keys in order.
func (o *Object) Keys() []string {
	if o.base == nil {
		return o.keys
	}
	keys := append(slices.Clone(o.base.Keys()), o.keys...)
	if slices.ContainsFunc(o.keys, isArrayIndex) {
		c := &Object{keys: keys, vals: make([]any, len(keys))}
		c.sortIndexKeys()
		keys = c.keys
	}
	return keys
}

// Len is the number of keys.
func (o *Object) Len() int {
	if o.base == nil {
		return len(o.keys)
	}
	return o.base.Len() + len(o.keys)
}

// sortIndexKeys puts the integer keys first, ascending, as JavaScript
// orders them.
func (o *Object) sortIndexKeys() {
	type kv struct {
		k string
		v any
	}
	var idx, rest []kv
	for i, k := range o.keys {
		if isArrayIndex(k) {
			idx = append(idx, kv{k, o.vals[i]})
		} else {
			rest = append(rest, kv{k, o.vals[i]})
		}
	}
	slices.SortStableFunc(idx, func(a, b kv) int {
		x, _ := strconv.ParseUint(a.k, 10, 32)
		y, _ := strconv.ParseUint(b.k, 10, 32)
		return int(int64(x) - int64(y))
	})
	for i, e := range append(idx, rest...) {
		o.keys[i], o.vals[i] = e.k, e.v
	}
	if o.index != nil {
		o.reindex()
	}
}

// isArrayIndex is JavaScript's test for a key ordered as an integer.
func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	for i := range len(k) {
		if k[i] < '0' || k[i] > '9' {
			return false // most keys: no failed parse (its error) made
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// clone is a flat copy of o.
func (o *Object) clone() *Object {
	keys := o.Keys()
	c := &Object{keys: slices.Clone(keys), vals: make([]any, len(keys))}
	for i, k := range keys {
		c.vals[i], _ = o.Get(k)
	}
	c.reindex()
	return c
}

// Lambda is a function value: a lambda of the query, or a function bound
// by the engine.
type Lambda struct {
	call func(c *Context, args []any) (any, error)
}

// ListPair is the key: value item of a LIST with an expression.
type ListPair struct{ Key, Value any }

// ExternalLink is elink()'s value.
type ExternalLink struct{ URL, Display string }

// typeOf names a value's type as Dataview does.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "boolean"
	case Duration:
		return "duration"
	case time.Time:
		return "date"
	case *ListPair, *ExternalLink:
		return "widget"
	case []any:
		return "array"
	case *Link:
		return "link"
	case *Lambda:
		return "function"
	case *Object:
		return "object"
	}
	return "unknown"
}

// truthy is Values.isTruthy.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case float64:
		return v != 0
	case string:
		return v != ""
	case bool:
		return v
	case *Link:
		return v.Path != ""
	case time.Time:
		return v.UnixMilli() != 0
	case Duration:
		return v.as("seconds") != 0
	case *Object:
		return v.Len() > 0
	case []any:
		return len(v) > 0
	}
	return true
}

// deepCopy copies lists and objects (what FLATTEN changes).
func deepCopy(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	case *Object:
		c := v.clone()
		for i, x := range c.vals {
			c.vals[i] = deepCopy(x)
		}
		return c
	}
	return v
}

// compareValues is Values.compareValue: a total order over every value.
// norm, when given, resolves link paths before they are compared.
func compareValues(a, b any, norm func(string) string) int {
	if a == nil && b == nil {
		return 0
	} else if a == nil {
		return -1
	} else if b == nil {
		return 1
	}
	ta, tb := typeOf(a), typeOf(b)
	if ta != tb {
		return strings.Compare(ta, tb) // type names are ASCII lower case: locale order is byte order
	}
	switch x := a.(type) {
	case string:
		return localeCompare(x, b.(string))
	case float64:
		y := b.(float64)
		if x < y {
			return -1
		} else if x == y {
			return 0
		}
		return 1
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		} else if x {
			return 1
		}
		return -1
	case *Link:
		return compareLinks(x, b.(*Link), norm)
	case time.Time:
		y := b.(time.Time)
		if x.UnixMilli() < y.UnixMilli() {
			return -1
		} else if dateEquals(x, y) {
			return 0
		}
		return 1
	case Duration:
		y := b.(Duration)
		if x.millis() < y.millis() {
			return -1
		} else if x.equals(y) {
			return 0
		}
		return 1
	case []any:
		y := b.([]any)
		for i := 0; i < min(len(x), len(y)); i++ {
			if c := compareValues(x[i], y[i], nil); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	case *Object:
		return compareObjects(x, b.(*Object))
	}
	return 0
}

func compareLinks(x, y *Link, norm func(string) string) int {
	if x == y {
		return 0
	}
	pa, pb := x.Path, y.Path
	if norm != nil {
		pa, pb = norm(pa), norm(pb)
	}
	if c := localeCompare(pa, pb); c != 0 {
		return c
	}
	if c := localeCompare(x.Type, y.Type); c != 0 {
		return c
	}
	switch {
	case x.Subpath != "" && y.Subpath == "":
		return 1
	case x.Subpath == "" && y.Subpath != "":
		return -1
	case x.Subpath == "" && y.Subpath == "":
		return 0
	}
	return localeCompare(x.Subpath, y.Subpath)
}

func compareObjects(x, y *Object) int {
	k1, k2 := slices.Clone(x.Keys()), slices.Clone(y.Keys())
	slices.Sort(k1) // JavaScript's default sort: UTF-16 code units
	slices.Sort(k2)
	if c := compareValues(stringsAny(k1), stringsAny(k2), nil); c != 0 {
		return c
	}
	for _, k := range k1 {
		xv, _ := x.Get(k)
		yv, _ := y.Get(k)
		if c := compareValues(xv, yv, nil); c != 0 {
			return c
		}
	}
	return 0
}

// dateEquals is luxon's equals: the same instant in the same zone.
func dateEquals(a, b time.Time) bool {
	if a.UnixMilli() != b.UnixMilli() {
		return false
	}
	return zoneID(a.Location()) == zoneID(b.Location())
}

func stringsAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// utf16Len is a JavaScript string's length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// jsSubstring is s.substring(from, to) on UTF-16 code units.
func jsSubstring(s string, from, to int) string {
	u := utf16.Encode([]rune(s))
	from = max(0, min(from, len(u)))
	to = max(0, min(to, len(u)))
	if from > to {
		from, to = to, from
	}
	return string(utf16.Decode(u[from:to]))
}

// jsNumber writes a number as JavaScript's String(n) does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		e, _ := strconv.Atoi(exp)
		sign := "+"
		if e < 0 {
			sign = "-"
			e = -e
		}
		return mant + "e" + sign + strconv.Itoa(e)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
