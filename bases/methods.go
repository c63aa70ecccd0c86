package bases

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

func stringMethod(s, name string, a []any) (any, error) {
	arg := func(i int) string {
		if i < len(a) {
			return toString(a[i])
		}
		return ""
	}
	switch name {
	case "contains":
		return strings.Contains(s, arg(0)), nil
	case "containsAll", "containsAny":
		all := name == "containsAll"
		for i := range a {
			if strings.Contains(s, arg(i)) != all {
				return !all, nil
			}
		}
		return all, nil
	case "startsWith":
		return strings.HasPrefix(s, arg(0)), nil
	case "endsWith":
		return strings.HasSuffix(s, arg(0)), nil
	case "lower":
		return strings.ToLower(s), nil
	case "upper":
		return strings.ToUpper(s), nil
	case "trim":
		return strings.TrimSpace(s), nil
	case "replace":
		// A text pattern replaces every occurrence, as the docs say; a
		// regular expression the first, or every one with g.
		if r, ok := argRegex(a, 0); ok {
			return r.replace(s, arg(1)), nil
		}
		return strings.ReplaceAll(s, arg(0), arg(1)), nil
	case "split":
		var parts []string
		if r, ok := argRegex(a, 0); ok {
			parts = r.re.Split(s, -1)
		} else {
			parts = strings.Split(s, arg(0))
		}
		if len(a) > 1 {
			// n: the first n elements (the rest were dropped silently
			// before: four items where the docs give three).
			n, ok := toNumber(a[1])
			if !ok || n < 0 {
				return nil, fmt.Errorf(".split(%q, %v): n must be a number, 0 or more", arg(0), a[1])
			}
			parts = parts[:min(len(parts), int(n))]
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	case "repeat":
		n, ok := toNumber(arg0(a))
		if !ok || n < 0 || n*float64(len(s)) > maxValueSize {
			return nil, errBound(".repeat(%v): the count must be 0 or more, and the text at most %d bytes", arg0(a), maxValueSize)
		}
		return strings.Repeat(s, int(n)), nil
	case "reverse":
		r := []rune(s)
		slices.Reverse(r)
		return string(r), nil
	case "title":
		words := strings.Fields(s)
		for i, w := range words {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		}
		return strings.Join(words, " "), nil
	case "slice":
		r := []rune(s)
		from, to := sliceBounds(len(r), a)
		return string(r[from:to]), nil
	}
	return nil, unsupported("the method .%s() of a string is not supported natively (supported: %s)", name, strings.Join(Functions, ", "))
}

func sliceBounds(n int, a []any) (int, int) {
	idx := func(i, def int) int {
		if i >= len(a) {
			return def
		}
		f, _ := toNumber(a[i])
		v := int(f)
		if v < 0 {
			v += n
		}
		return max(0, min(n, v))
	}
	from, to := idx(0, 0), idx(1, n)
	return from, max(from, to)
}

func numberMethod(f float64, name string, a []any) (any, error) {
	digits := 0
	if len(a) > 0 {
		d, _ := toNumber(a[0])
		if d < 0 || d > maxDigits || d != d {
			return nil, errBound(".%s(%v): the digits must be 0 to %d", name, a[0], maxDigits)
		}
		digits = int(d)
	}
	switch name {
	case "toFixed":
		return strconv.FormatFloat(f, 'f', digits, 64), nil
	case "round":
		p := math.Pow(10, float64(digits))
		return math.Round(f*p) / p, nil
	case "floor":
		return math.Floor(f), nil
	case "ceil":
		return math.Ceil(f), nil
	case "abs":
		return math.Abs(f), nil
	}
	return nil, unsupported("the method .%s() of a number is not supported natively (supported: %s)", name, strings.Join(Functions, ", "))
}

func listMethod(l []any, name string, a []any, b *budget) (any, error) {
	has := func(v any) bool {
		return slices.ContainsFunc(l, func(x any) bool { return equal(x, v) })
	}
	switch name {
	case "contains":
		return len(a) == 1 && has(a[0]), nil
	case "containsAll":
		for _, v := range a {
			if !has(v) {
				return false, nil
			}
		}
		return true, nil
	case "containsAny":
		for _, v := range a {
			if has(v) {
				return true, nil
			}
		}
		return false, nil
	case "join":
		sep := ","
		if len(a) > 0 {
			sep = toString(a[0])
		}
		parts := make([]string, len(l))
		for i, v := range l {
			parts[i] = toString(v)
		}
		return strings.Join(parts, sep), nil
	case "unique":
		return unique(l, b)
	case "sort":
		out := slices.Clone(l)
		sort.SliceStable(out, func(i, j int) bool { return compare(out[i], out[j]) < 0 })
		return out, nil
	case "reverse":
		out := slices.Clone(l)
		slices.Reverse(out)
		return out, nil
	case "flat":
		var out []any
		for _, v := range l {
			if inner, ok := v.([]any); ok {
				out = append(out, inner...)
			} else {
				out = append(out, v)
			}
		}
		return out, nil
	case "slice":
		from, to := sliceBounds(len(l), a)
		return l[from:to], nil
	}
	return nil, unsupported("the method .%s() of a list is not supported natively (supported: %s)", name, strings.Join(Functions, ", "))
}

// dateFormats maps the moment.js tokens the format method reads to Go's.
var dateFormats = strings.NewReplacer("YYYY", "2006", "YY", "06", "MMMM", "January", "MMM", "Jan", "MM", "01", "M", "1",
	"DD", "02", "D", "2", "dddd", "Monday", "ddd", "Mon", "HH", "15", "hh", "03", "mm", "04", "ss", "05", "A", "PM")

func dateMethod(t time.Time, name string, a []any) (any, error) {
	switch name {
	case "format":
		f := "YYYY-MM-DD"
		if len(a) > 0 {
			f = toString(a[0])
		}
		return t.Format(dateFormats.Replace(f)), nil
	case "date":
		return day(t), nil
	}
	return nil, unsupported("the method .%s() of a date is not supported natively (supported: format, date)", name)
}

// argRegex is argument i when it is a regular expression literal.
func argRegex(a []any, i int) (*regex, bool) {
	if i >= len(a) {
		return nil, false
	}
	r, ok := a[i].(*regex)
	return r, ok
}

func arg0(a []any) any {
	if len(a) == 0 {
		return nil
	}
	return a[0]
}
