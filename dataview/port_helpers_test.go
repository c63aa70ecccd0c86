package dataview

import (
	"math"
	"testing"
	"time"
)

// Helpers for the tests ported from Dataview's own (src/test/, MIT,
// github.com/blacksmithgu/obsidian-dataview at 0.5.70): they build the
// values Dataview's tests expect, and compare the way Jest's toEqual
// does for them.

// testGrammar reads in UTC at the recorded "now".
var testGrammar = newGrammar(time.UTC, func() time.Time { return fixedNow })

// simpleLinks never resolves a link (Dataview's simpleLinkHandler).
type simpleLinks struct{ resolve func(string) *Object }

func (h simpleLinks) Resolve(p string) *Object {
	if h.resolve != nil {
		return h.resolve(p)
	}
	return nil
}
func (simpleLinks) Normalize(p string) string { return p }

func simpleContext() *Context {
	return &Context{links: simpleLinks{}, globals: NewObject(), g: testGrammar}
}

// parseEval parses an expression and evaluates it in the simple context.
func parseEval(t *testing.T, text string) (any, error) {
	t.Helper()
	f, perr := parseAll(testGrammar.field, text)
	if perr != nil {
		return nil, perr
	}
	return simpleContext().eval(f, &scope{})
}

// L is a list; ints become numbers.
func L(xs ...any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = num64(x)
	}
	return out
}

func num64(x any) any {
	switch n := x.(type) {
	case int:
		return float64(n)
	case []any:
		return L(n...)
	}
	return x
}

// O is an object from key, value pairs.
func O(kv ...any) *Object {
	o := NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), num64(kv[i+1]))
	}
	return o
}

// D is DateTime.fromObject in UTC (the tests' zone).
func D(y, mo, d int, hms ...int) time.Time {
	parts := append(hms, 0, 0, 0, 0)
	return time.Date(y, time.Month(mo), d, parts[0], parts[1], parts[2], parts[3]*1e6, time.UTC)
}

// Dur is Duration.fromObject: unit, amount pairs.
func Dur(kv ...any) Duration {
	var d Duration
	for i := 0; i+1 < len(kv); i += 2 {
		u := unitIndex(kv[i].(string))
		d.v[u] = num64(kv[i+1]).(float64)
		d.has |= 1 << u
	}
	return d
}

// equal is Jest's toEqual over Dataview's values.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case string, bool:
		return a == b
	case time.Time:
		y, ok := b.(time.Time)
		return ok && dateEquals(x, y)
	case Duration:
		y, ok := b.(Duration)
		return ok && x.has == y.has && x.v == y.v
	case *Link:
		y, ok := b.(*Link)
		return ok && *x == *y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			xv, _ := x.Get(k)
			yv, ok := y.Get(k)
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case *ListPair:
		y, ok := b.(*ListPair)
		return ok && equal(x.Key, y.Key) && equal(x.Value, y.Value)
	case *ExternalLink:
		y, ok := b.(*ExternalLink)
		return ok && *x == *y
	}
	return false
}

// evalCase is one ported assertion: an expression and the value
// Dataview's test expects (or, with wantExpr, the value of another
// expression; or, with fails, that it is an error).
type evalCase struct {
	from     string // Dataview's test file and test name
	expr     string
	want     any
	wantExpr string
	fails    bool
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, c := range cases {
		got, err := parseEval(t, c.expr)
		if c.fails {
			if err == nil {
				t.Errorf("%s: %s = %s, want an error", c.from, c.expr, toText(got, true))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s: %v", c.from, c.expr, err)
			continue
		}
		want := num64(c.want)
		if c.wantExpr != "" {
			if want, err = parseEval(t, c.wantExpr); err != nil {
				t.Errorf("%s: %s: %v", c.from, c.wantExpr, err)
				continue
			}
		}
		if !equal(got, want) {
			t.Errorf("%s: %s = %s (%s), want %s (%s)", c.from, c.expr, toText(got, true), typeOf(got), toText(want, true), typeOf(want))
		}
	}
}
