package bases

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// GroupSummaries are a group's summaries, when the view groups.
type GroupSummaries struct {
	Group     any            `json:"group" jsonschema:"the group's value"`
	Summaries map[string]any `json:"summaries" jsonschema:"column → its summary over the group's rows"`
}

// builtinSummaries are the documented default summaries, by name.
var builtinSummaries = map[string]func([]any) (any, error){
	"Average": func(v []any) (any, error) {
		n := numbers(v)
		if len(n) == 0 {
			return nil, nil
		}
		s := 0.0
		for _, x := range n {
			s += x
		}
		return s / float64(len(n)), nil
	},
	"Min": func(v []any) (any, error) { return extreme(numbers(v), -1), nil },
	"Max": func(v []any) (any, error) { return extreme(numbers(v), 1), nil },
	"Sum": func(v []any) (any, error) {
		s := 0.0
		for _, x := range numbers(v) {
			s += x
		}
		return s, nil
	},
	"Median": func(v []any) (any, error) {
		n := numbers(v)
		if len(n) == 0 {
			return nil, nil
		}
		sort.Float64s(n)
		if len(n)%2 == 1 {
			return n[len(n)/2], nil
		}
		return (n[len(n)/2-1] + n[len(n)/2]) / 2, nil
	},
	// Range is Max − Min over numbers, or Latest − Earliest over dates
	// (in milliseconds, as date − date is in a formula).
	"Range": func(v []any) (any, error) {
		if d := dates(v); len(d) > 0 && len(numbers(v)) == 0 {
			first, last := dateExtremes(d)
			return float64(last.Sub(first).Milliseconds()), nil
		}
		n := numbers(v)
		if len(n) == 0 {
			return nil, nil
		}
		return extreme(n, 1).(float64) - extreme(n, -1).(float64), nil
	},
	"Earliest": func(v []any) (any, error) {
		d := dates(v)
		if len(d) == 0 {
			return nil, nil
		}
		first, _ := dateExtremes(d)
		return first, nil
	},
	"Latest": func(v []any) (any, error) {
		d := dates(v)
		if len(d) == 0 {
			return nil, nil
		}
		_, last := dateExtremes(d)
		return last, nil
	},
	"Checked":   func(v []any) (any, error) { return count(v, func(x any) bool { return x == true }), nil },
	"Unchecked": func(v []any) (any, error) { return count(v, func(x any) bool { return x == false }), nil },
	"Empty":     func(v []any) (any, error) { return count(v, isEmptyValue), nil },
	"Filled":    func(v []any) (any, error) { return count(v, func(x any) bool { return !isEmptyValue(x) }), nil },
	"Unique": func(v []any) (any, error) {
		var seen []any
		for _, x := range v {
			if !slices.ContainsFunc(seen, func(y any) bool { return equal(x, y) }) {
				seen = append(seen, x)
			}
		}
		return float64(len(seen)), nil
	},
	// Stddev is documented without saying whether it is the population's
	// or a sample's deviation: refused rather than guessed.
	"Stddev": func([]any) (any, error) {
		return nil, unsupported("the summary Stddev is not computed natively: the docs do not say whether it is the population's or a sample's deviation")
	},
}

// checkSummaries refuses, before any row is read, a view's summary that
// names neither a built-in nor one of the base's own, and a custom one
// whose formula cannot be evaluated.
func (b *Base) checkSummaries(v View) error {
	for col, name := range v.Summaries {
		if _, ok := builtinSummaries[name]; ok {
			continue
		}
		src, ok := b.Summaries[name]
		if !ok {
			return unsupported("the view %q summarises %s with %q, which is no default summary (%s) and none of the base's summaries", v.Name, col, name, strings.Join(summaryNames(), ", "))
		}
		n, err := parse(src)
		if err != nil {
			return err
		}
		if err := b.check(n); err != nil {
			return err
		}
	}
	return nil
}

func summaryNames() []string {
	var out []string
	for k := range builtinSummaries {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// summarise computes each summary of the view over values (column →
// the rows' values, in order).
func (b *Base) summarise(v View, values map[string][]any, now time.Time) (map[string]any, error) {
	out := map[string]any{}
	for col, name := range v.Summaries {
		var (
			val any
			err error
		)
		if fn, ok := builtinSummaries[name]; ok {
			val, err = fn(values[col])
		} else {
			n, perr := parse(b.Summaries[name])
			if perr != nil {
				return nil, perr
			}
			e := &env{f: &File{}, formulas: b.Formulas, now: now, done: map[string]any{}, busy: map[string]bool{},
				vars: map[string]any{"values": slices.Clone(values[col])}}
			val, err = e.eval(n)
		}
		if err != nil {
			return nil, err
		}
		out[col] = jsonValue(val)
	}
	return out, nil
}

func numbers(v []any) []float64 {
	var out []float64
	for _, x := range v {
		switch x := x.(type) {
		case float64:
			out = append(out, x)
		case int:
			out = append(out, float64(x))
		case int64:
			out = append(out, float64(x))
		}
	}
	return out
}

func dates(v []any) []time.Time {
	var out []time.Time
	for _, x := range v {
		if t, ok := x.(time.Time); ok {
			out = append(out, t)
		}
	}
	return out
}

func dateExtremes(d []time.Time) (first, last time.Time) {
	first, last = d[0], d[0]
	for _, t := range d[1:] {
		if t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	return first, last
}

// extreme is the largest (sign 1) or smallest (-1) of n, nil for none.
func extreme(n []float64, sign float64) any {
	if len(n) == 0 {
		return nil
	}
	best := n[0]
	for _, x := range n[1:] {
		if (x-best)*sign > 0 {
			best = x
		}
	}
	return best
}

func count(v []any, ok func(any) bool) float64 {
	n := 0.0
	for _, x := range v {
		if ok(x) {
			n++
		}
	}
	return n
}

// isEmptyValue: no value, empty text, an empty list or object.
func isEmptyValue(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case float64:
		return math.IsNaN(x)
	}
	return false
}
