package dataview

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/evalbudget"
)

// LinkHandler resolves links for an evaluation, relative to the note the
// query runs from.
type LinkHandler interface {
	// Resolve is the page a link path leads to, nil when none.
	Resolve(path string) *Object
	// Normalize is the vault path a link leads to, or the path unchanged.
	Normalize(path string) string
}

// Context evaluates expressions: globals (this), links, the grammar for
// date(text), and the query's meter.
type Context struct {
	links   LinkHandler
	globals *Object
	g       *grammar
	meter   *evalbudget.Meter
	depth   int
	maxRows int
}

// maxCallDepth bounds lambdas calling lambdas (a query cannot recurse,
// but a deep nest of map(filter(map(...))) can).
const maxCallDepth = 200

// scope is the data an expression sees: a row's fields, and the
// arguments of the lambdas around it.
type scope struct {
	names  []string
	vals   []any
	parent *scope
	row    *Object
}

func (s *scope) lookup(name string) (any, bool) {
	for ; s != nil; s = s.parent {
		for i := len(s.names) - 1; i >= 0; i-- {
			if s.names[i] == name {
				return s.vals[i], true
			}
		}
		if s.row != nil {
			if v, ok := s.row.Get(name); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// merged is Object.assign({}, globals, data): what row names.
func (c *Context) merged(s *scope) *Object {
	o := NewObject()
	if c.globals != nil {
		for _, k := range c.globals.Keys() {
			v, _ := c.globals.Get(k)
			o.Set(k, v)
		}
	}
	var chain []*scope
	for x := s; x != nil; x = x.parent {
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		x := chain[i]
		if x.row != nil {
			for _, k := range x.row.Keys() {
				v, _ := x.row.Get(k)
				o.Set(k, v)
			}
		}
		for j, n := range x.names {
			o.Set(n, x.vals[j])
		}
	}
	return o
}

// evalError is an expression's failure, which Dataview reports per row.
type evalError struct{ msg string }

func (e *evalError) Error() string { return e.msg }

func failf(format string, args ...any) error { return &evalError{fmt.Sprintf(format, args...)} }

// isStop says an error ends the whole query (the meter), not one row.
func isStop(err error) bool { return evalbudget.IsStopped(err) }

func (c *Context) eval(f field, s *scope) (any, error) {
	if err := c.meter.Spend(1); err != nil {
		return nil, err
	}
	switch f := f.(type) {
	case litField:
		return f.v, nil
	case varField:
		if v, ok := s.lookup(f.name); ok {
			return v, nil
		}
		if c.globals != nil {
			if v, ok := c.globals.Get(f.name); ok {
				return v, nil
			}
		}
		return nil, nil
	case negField:
		v, err := c.eval(f.child, s)
		if err != nil {
			return nil, err
		}
		return !truthy(v), nil
	case binField:
		l, lerr := c.eval(f.l, s)
		r, rerr := c.eval(f.r, s)
		if lerr != nil {
			return nil, lerr
		}
		if rerr != nil {
			return nil, rerr
		}
		return c.binary(f.op, l, r)
	case listField:
		out := make([]any, 0, len(f.vals))
		for _, x := range f.vals {
			v, err := c.eval(x, s)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case objField:
		o := NewObject()
		for i, k := range f.keys {
			v, err := c.eval(f.vals[i], s)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
		}
		return o, nil
	case lambdaField:
		return &Lambda{call: func(c *Context, args []any) (any, error) {
			inner := &scope{parent: s}
			for i := 0; i < min(len(args), len(f.args)); i++ {
				inner.names = append(inner.names, f.args[i])
				inner.vals = append(inner.vals, args[i])
			}
			return c.eval(f.body, inner)
		}}, nil
	case funcField:
		return c.evalCall(f, s)
	case indexField:
		return c.evalIndex(f, s)
	}
	return nil, failf("unknown expression")
}

func (c *Context) evalCall(f funcField, s *scope) (any, error) {
	var fn any
	if v, ok := f.fn.(varField); ok {
		fn = v.name
	} else {
		var err error
		if fn, err = c.eval(f.fn, s); err != nil {
			return nil, err
		}
	}
	args := make([]any, 0, len(f.args))
	for _, a := range f.args {
		v, err := c.eval(a, s)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	switch fn := fn.(type) {
	case *Lambda:
		return c.callLambda(fn, args)
	case string:
		impl, ok := functions[fn]
		if !ok {
			return nil, failf("Unrecognized function name '%s'", fn)
		}
		return impl(c, args)
	}
	return nil, failf("Cannot call type '%s' as a function", typeOf(fn))
}

func (c *Context) callLambda(fn *Lambda, args []any) (any, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxCallDepth {
		return nil, failf("functions nest more than %d deep", maxCallDepth)
	}
	return fn.call(c, args)
}

func (c *Context) evalIndex(f indexField, s *scope) (any, error) {
	idx, err := c.eval(f.idx, s)
	if err != nil {
		return nil, err
	}
	switch idx.(type) {
	case string, float64, nil:
	default:
		return nil, failf("Can only index with a string or number")
	}
	if idx == nil {
		return nil, nil
	}
	var obj any
	if v, ok := f.obj.(varField); ok && v.name == "row" {
		obj = c.merged(s)
	} else if obj, err = c.eval(f.obj, s); err != nil {
		return nil, err
	}
	return c.index(obj, idx)
}

// index is obj[idx] with Dataview's rules for each type.
func (c *Context) index(obj, idx any) (any, error) {
	switch o := obj.(type) {
	case *Object:
		k, ok := idx.(string)
		if !ok {
			return nil, failf(`can only index into objects with strings (a.b or a["b"])`)
		}
		v, _ := o.Get(k)
		return v, nil
	case *Link:
		k, ok := idx.(string)
		if !ok {
			return nil, failf(`can only index into links with strings (a.b or a["b"])`)
		}
		if c.links == nil {
			return nil, nil
		}
		page := c.links.Resolve(o.Path)
		if page == nil {
			return nil, nil
		}
		v, _ := page.Get(k)
		return v, nil
	case []any:
		switch i := idx.(type) {
		case float64:
			if i >= float64(len(o)) || i < 0 || i != math.Trunc(i) {
				return nil, nil
			}
			return o[int(i)], nil
		case string:
			if err := c.meter.Spend(len(o)); err != nil {
				return nil, err
			}
			out := make([]any, 0, len(o))
			for _, x := range o {
				v, err := c.index(x, i)
				if err != nil {
					if isStop(err) {
						return nil, err
					}
					continue
				}
				out = append(out, v)
			}
			return out, nil
		}
	case string:
		i, ok := idx.(float64)
		if !ok {
			return nil, failf("string indexing requires a numeric index (string[index])")
		}
		n := utf16Len(o)
		if i >= float64(n) || i < 0 || i != math.Trunc(i) {
			return nil, nil
		}
		return jsSubstring(o, int(i), int(i)+1), nil
	case time.Time:
		k, ok := idx.(string)
		if !ok {
			return nil, failf("date indexing requires a string representing the unit")
		}
		return dateField(o, k), nil
	case Duration:
		k, ok := idx.(string)
		if !ok {
			return nil, failf("duration indexing requires a string representing the unit")
		}
		switch k {
		case "year", "years", "month", "months", "weeks", "day", "days", "hour", "hours", "minute", "minutes", "second", "seconds", "millisecond", "milliseconds":
			u := unitIndex(k)
			return o.shiftTo(1 << u).v[u], nil
		}
		return nil, nil
	}
	return nil, nil
}

func dateField(t time.Time, k string) any {
	switch k {
	case "year":
		return float64(t.Year())
	case "month":
		return float64(t.Month())
	case "weekyear":
		_, w := t.ISOWeek()
		return float64(w)
	case "week":
		return math.Floor(float64(t.Day())/7) + 1
	case "weekday":
		return float64(luxonWeekday(t))
	case "day":
		return float64(t.Day())
	case "hour":
		return float64(t.Hour())
	case "minute":
		return float64(t.Minute())
	case "second":
		return float64(t.Second())
	case "millisecond":
		return float64(dateMillis(t))
	}
	return nil
}

func (c *Context) normalizer() func(string) string {
	if c.links == nil {
		return nil
	}
	return c.links.Normalize
}

// compares are the comparison operators, from one comparison.
var compares = map[string]func(cmp int) bool{
	"<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
	">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
	"=": func(c int) bool { return c == 0 }, "!=": func(c int) bool { return c != 0 },
}

func scaleDuration(d Duration, f func(float64) float64) Duration {
	return normalizeDuration(d.mapUnits(f))
}

// arithmetic is Dataview's table of operators on two given types.
var arithmetic = map[string]func(a, b any) (any, error){
	"number+number": func(a, b any) (any, error) { return a.(float64) + b.(float64), nil },
	"number-number": func(a, b any) (any, error) { return a.(float64) - b.(float64), nil },
	"number*number": func(a, b any) (any, error) { return a.(float64) * b.(float64), nil },
	"number/number": func(a, b any) (any, error) { return a.(float64) / b.(float64), nil },
	"number%number": func(a, b any) (any, error) { return math.Mod(a.(float64), b.(float64)), nil },
	"date-date":     func(a, b any) (any, error) { return dateDiff(a.(time.Time), b.(time.Time)), nil },
	"date-duration": func(a, b any) (any, error) { return plusDuration(a.(time.Time), b.(Duration).negate()), nil },
	"date+duration": func(a, b any) (any, error) { return plusDuration(a.(time.Time), b.(Duration)), nil },
	"duration+date": func(a, b any) (any, error) { return plusDuration(b.(time.Time), a.(Duration)), nil },
	"duration+duration": func(a, b any) (any, error) {
		return normalizeDuration(a.(Duration).plus(b.(Duration))), nil
	},
	"duration-duration": func(a, b any) (any, error) {
		return normalizeDuration(a.(Duration).plus(b.(Duration).negate())), nil
	},
	"duration/number": func(a, b any) (any, error) {
		return scaleDuration(a.(Duration), func(x float64) float64 { return x / b.(float64) }), nil
	},
	"duration*number": func(a, b any) (any, error) {
		return scaleDuration(a.(Duration), func(x float64) float64 { return x * b.(float64) }), nil
	},
	"number*duration": func(a, b any) (any, error) {
		return scaleDuration(b.(Duration), func(x float64) float64 { return x * a.(float64) }), nil
	},
	"string*number": func(a, b any) (any, error) { return repeat(a.(string), b.(float64)) },
	"number*string": func(a, b any) (any, error) { return repeat(b.(string), a.(float64)) },
	"object+object": func(a, b any) (any, error) {
		o := a.(*Object).clone()
		y := b.(*Object)
		for _, k := range y.Keys() {
			v, _ := y.Get(k)
			o.Set(k, v)
		}
		return o, nil
	},
	"date+null": func(any, any) (any, error) { return nil, nil },
	"null+date": func(any, any) (any, error) { return nil, nil },
	"date-null": func(any, any) (any, error) { return nil, nil },
	"null-date": func(any, any) (any, error) { return nil, nil },
}

// binary is Dataview's operator table, with its fallbacks: the two
// types, then either one with any, then any with any.
func (c *Context) binary(op string, a, b any) (any, error) {
	if cmp, ok := compares[op]; ok {
		return cmp(compareValues(a, b, c.normalizer())), nil
	}
	switch op {
	case "&":
		return truthy(a) && truthy(b), nil
	case "|":
		return truthy(a) || truthy(b), nil
	}
	ta, tb := typeOf(a), typeOf(b)
	if ta == "null" && tb == "null" {
		return nil, nil
	}
	key := ta + op + tb
	if key == "array+array" {
		x, y := a.([]any), b.([]any)
		if err := c.meter.Spend(len(x) + len(y)); err != nil {
			return nil, err
		}
		return append(append(make([]any, 0, len(x)+len(y)), x...), y...), nil
	}
	if f, ok := arithmetic[key]; ok {
		return f(a, b)
	}
	if op == "+" && ta == "string" {
		return joinText(a.(string), toText(b, false))
	}
	if op == "+" && tb == "string" {
		return joinText(toText(a, false), b.(string))
	}
	return nil, failf("No implementation found for '%s %s %s'", ta, op, tb)
}

// maxText bounds a string an expression builds ("x" * 1e12 is refused).
const maxText = 16 << 20

func joinText(a, b string) (any, error) {
	if len(a)+len(b) > maxText {
		return nil, failf("a text of more than %d bytes is refused", maxText)
	}
	return a + b, nil
}

func repeat(s string, n float64) (any, error) {
	if n < 0 || math.IsNaN(n) {
		return "", nil
	}
	n = math.Floor(n)
	if float64(len(s))*n > maxText {
		return nil, failf("a text of more than %d bytes is refused", maxText)
	}
	return strings.Repeat(s, int(n)), nil
}

// Settings are Dataview's defaults, the ones a reader of its Markdown sees.
const (
	renderNullAs      = `\-`
	defaultDateFormat = "MMMM dd, yyyy"
	defaultDateTime   = "h:mm a - MMMM dd, yyyy"
)

// toText is Values.toString with the default settings.
func toText(v any, recursive bool) string {
	switch v := v.(type) {
	case nil:
		return renderNullAs
	case string:
		return v
	case float64:
		return jsNumber(v)
	case bool:
		return strconv.FormatBool(v)
	case *ListPair:
		return toText(v.Key, false) + ": " + toText(v.Value, false)
	case *ExternalLink:
		d := v.Display
		if d == "" {
			d = v.URL
		}
		return "[" + d + "](" + v.URL + ")"
	case *Link:
		return v.Markdown()
	case *Lambda:
		return "<function>"
	case []any:
		var b strings.Builder
		if recursive {
			b.WriteByte('[')
		}
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(toText(x, true))
		}
		if recursive {
			b.WriteByte(']')
		}
		return b.String()
	case *Object:
		var b strings.Builder
		b.WriteString("{ ")
		for i, k := range v.Keys() {
			if i > 0 {
				b.WriteString(", ")
			}
			x, _ := v.Get(k)
			b.WriteString(k + ": " + toText(x, true))
		}
		b.WriteString(" }")
		return b.String()
	case time.Time:
		if v.Second() == 0 && v.Hour() == 0 && v.Minute() == 0 {
			return formatDate(v, defaultDateFormat)
		}
		return formatDate(v, defaultDateTime)
	case Duration:
		return v.human()
	}
	return ""
}
