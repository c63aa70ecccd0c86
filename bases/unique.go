package bases

import (
	"time"
)

// unique keeps the first of each run of values equal to one kept before,
// as comparing each value with every one kept would, in linear time:
// equal is not an exact key (1 equals "1", a date the text of its day),
// so each value kept is filed under every face equal can compare it by,
// and a new value is looked up under the faces it would be compared by.
// (Comparing pairs took 46 s of CPU for 20,000 values.) Only lists are
// compared pair by pair, among kept lists of their length.
//
// It looks at b every 1,024 values, so that a long list stops within
// milliseconds of a cancel.
func unique(l []any, b *budget) ([]any, error) {
	u := uniques{times: map[instant]bool{}, floats: map[float64]bool{}, numbers: map[float64]bool{},
		dates: map[instant]bool{}, exact: map[exactKey]bool{}, lists: map[int][][]any{}}
	var out []any
	for i, v := range l {
		if i%1024 == 1023 {
			if err := b.Spend(1024); err != nil {
				return nil, err
			}
		}
		if u.seen(v) {
			continue
		}
		u.keep(v)
		out = append(out, v)
	}
	return out, nil
}

type instant struct {
	sec  int64
	nsec int
}

func instantOf(t time.Time) instant { return instant{t.Unix(), t.Nanosecond()} }

type exactKey struct{ typ, text string }

// uniques files the values kept by how equal(kept, new) may find them.
type uniques struct {
	null    bool
	times   map[instant]bool  // kept dates
	floats  map[float64]bool  // kept numbers
	numbers map[float64]bool  // kept values that are not dates or numbers, read as numbers
	dates   map[instant]bool  // kept values that are not dates, read as dates
	exact   map[exactKey]bool // kept values that are no date, number or list
	lists   map[int][][]any   // kept lists, by length
}

func (u *uniques) keep(v any) {
	switch x := v.(type) {
	case nil:
		u.null = true
		return
	case time.Time:
		u.times[instantOf(x)] = true
		return
	}
	if t, ok := toDate(v); ok {
		u.dates[instantOf(t)] = true
	}
	switch x := v.(type) {
	case float64:
		u.floats[x] = true
	case []any:
		u.lists[len(x)] = append(u.lists[len(x)], x)
		if n, ok := toNumber(v); ok {
			u.numbers[n] = true
		}
	default:
		if n, ok := toNumber(v); ok {
			u.numbers[n] = true
		}
		u.exact[exactKey{typeName(v), toString(v)}] = true
	}
}

// seen reports whether equal(x, v) holds for some kept x, following
// equal's own order of cases.
func (u *uniques) seen(v any) bool {
	if v == nil {
		return u.null
	}
	if t, ok := v.(time.Time); ok {
		// A kept date: the same instant; anything else kept: read as
		// a date.
		i := instantOf(t)
		return u.times[i] || u.dates[i]
	}
	// A kept date x: equal(x, v) reads v as a date.
	if t, ok := toDate(v); ok && u.times[instantOf(t)] {
		return true
	}
	if f, ok := v.(float64); ok {
		// A kept number: the same; anything else kept: read as a number.
		return u.floats[f] || u.numbers[f]
	}
	// A kept number x: equal(x, v) reads v as a number.
	if n, ok := toNumber(v); ok && u.floats[n] {
		return true
	}
	if l, ok := v.([]any); ok {
		for _, x := range u.lists[len(l)] {
			if equal(x, v) {
				return true
			}
		}
		return false
	}
	return u.exact[exactKey{typeName(v), toString(v)}]
}
