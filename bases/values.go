package bases

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case int64:
		return v != 0
	case int:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	}
	return true
}

func isEmptyCollection(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

func toNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

func toString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case time.Time:
		return formatDate(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = toString(x)
		}
		return strings.Join(parts, ", ")
	case *regex:
		return v.src
	}
	return fmt.Sprint(v)
}

// dateLayouts are the forms a date property is written in.
var dateLayouts = []string{time.DateOnly, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", time.RFC3339}

func toDate(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v, true
	case string:
		v = strings.TrimSpace(v)
		// Every layout starts with a four-digit year and a hyphen: a text
		// that does not is no date, and costs no six failed parses.
		if len(v) < len(time.DateOnly) || v[4] != '-' || strings.IndexFunc(v[:4], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return time.Time{}, false
		}
		for _, l := range dateLayouts {
			if t, err := time.ParseInLocation(l, v, time.Local); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

func formatDate(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

func day(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, int64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "list"
	case time.Time:
		return "date"
	case map[string]any:
		return "object"
	case fileObj:
		return "file"
	case *regex:
		return "regexp"
	}
	return fmt.Sprintf("%T", v)
}

func strList(s []string, prefix string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = prefix + x
	}
	return out
}

// equal compares as JavaScript's == would for the values of a base: a
// date equals the text of the same date.
func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ta, ok := a.(time.Time); ok {
		tb, ok := toDate(b)
		return ok && ta.Equal(tb)
	}
	if _, ok := b.(time.Time); ok {
		return equal(b, a)
	}
	if na, ok := a.(float64); ok {
		nb, ok := toNumber(b)
		return ok && na == nb
	}
	if _, ok := b.(float64); ok {
		return equal(b, a)
	}
	if la, ok := a.([]any); ok {
		lb, ok := b.([]any)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !equal(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return toString(a) == toString(b) && typeName(a) == typeName(b)
}

// compare orders two values: numbers by value, dates by time (a text date
// against a date read as one), text without case.
func compare(a, b any) int {
	if ta, ok := toDate(a); ok {
		if tb, ok := toDate(b); ok {
			if _, isTime := a.(time.Time); isTime || isTimeValue(b) {
				return ta.Compare(tb)
			}
		}
	}
	na, okA := toNumber(a)
	nb, okB := toNumber(b)
	// As in JavaScript: a number against text that reads as one compares
	// as numbers; two texts compare as text.
	if okA && okB && !(isText(a) && isText(b)) {
		switch {
		case na < nb:
			return -1
		case na > nb:
			return 1
		}
		return 0
	}
	return strings.Compare(strings.ToLower(toString(a)), strings.ToLower(toString(b)))
}

func isTimeValue(v any) bool { _, ok := v.(time.Time); return ok }
func isText(v any) bool      { _, ok := v.(string); return ok }

var durationPart = regexp.MustCompile(`^\s*(-?\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$`)

// duration reads "1 week", "3d", "2 hours" as a date step.
func duration(s string) (years, months, days int, d time.Duration, ok bool) {
	m := durationPart.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, 0, 0, false
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	u := strings.ToLower(m[2])
	switch {
	case u == "y" || strings.HasPrefix(u, "year"):
		return int(n), 0, 0, 0, true
	case u == "m" && m[2] == "M" || strings.HasPrefix(u, "month"):
		return 0, int(n), 0, 0, true
	case u == "w" || strings.HasPrefix(u, "week"):
		return 0, 0, int(n) * 7, 0, true
	case u == "d" || strings.HasPrefix(u, "day"):
		return 0, 0, int(n), 0, true
	case u == "h" || strings.HasPrefix(u, "hour"):
		return 0, 0, 0, time.Duration(n * float64(time.Hour)), true
	case u == "m" || strings.HasPrefix(u, "minute"):
		return 0, 0, 0, time.Duration(n * float64(time.Minute)), true
	case u == "s" || strings.HasPrefix(u, "second"):
		return 0, 0, 0, time.Duration(n * float64(time.Second)), true
	}
	return 0, 0, 0, 0, false
}

func arith(op string, l, r any) (any, error) {
	if t, ok := l.(time.Time); ok && (op == "+" || op == "-") {
		if s, ok := r.(string); ok {
			if y, mo, d, dur, ok := duration(s); ok {
				if op == "-" {
					y, mo, d, dur = -y, -mo, -d, -dur
				}
				return t.AddDate(y, mo, d).Add(dur), nil
			}
		}
		if u, ok := toDate(r); ok && op == "-" {
			return float64(t.Sub(u).Milliseconds()), nil
		}
		return nil, nil
	}
	if op == "+" {
		if ls, ok := l.(string); ok {
			return ls + toString(r), nil
		}
		if rs, ok := r.(string); ok && l != nil {
			return toString(l) + rs, nil
		}
		if ll, ok := l.([]any); ok {
			if rl, ok := r.([]any); ok {
				return append(slices.Clone(ll), rl...), nil
			}
		}
	}
	a, ok1 := toNumber(l)
	b, ok2 := toNumber(r)
	if !ok1 || !ok2 {
		return nil, nil
	}
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		if b == 0 {
			return nil, nil
		}
		return a / b, nil
	case "%":
		if b == 0 {
			return nil, nil
		}
		return math.Mod(a, b), nil
	}
	return nil, fmt.Errorf("unknown operator %s", op)
}
