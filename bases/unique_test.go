package bases

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// naiveUnique is unique as it was: each value against every one kept.
func naiveUnique(l []any) []any {
	var out []any
	for _, v := range l {
		if !slices.ContainsFunc(out, func(x any) bool { return equal(x, v) }) {
			out = append(out, v)
		}
	}
	return out
}

// TestUniqueAsPairwise: on random lists of every kind of value equal
// compares across (numbers and their text, dates and theirs, nulls,
// lists), unique keeps exactly what comparing each value with every one
// kept keeps, in the same order.
func TestUniqueAsPairwise(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	pool := []any{nil, 1.0, 0.0, math.Copysign(0, -1), math.NaN(), 2.5, "1", "1.0", "01", "2.5", "x", "X", "", true, false, "true",
		day, day.Add(time.Hour), "2026-01-02", "2026-01-02T01:00:00Z", float64(day.UnixMilli()),
		[]any{1.0, "a"}, []any{"1", "a"}, []any{1.0}, []any{}, []any{day}, []any{"2026-01-02"}, map[string]any{"a": 1.0}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		l := make([]any, r.IntN(12))
		for i := range l {
			l[i] = pool[r.IntN(len(pool))]
		}
		got, _ := unique(l, nil)
		want := naiveUnique(l)
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Fatalf("unique(%#v)\n got %#v\nwant %#v", l, got, want)
		}
	}
}

// bigBase is a base whose one formula makes unique() walk the n values
// of each file's list property.
func bigBase(t *testing.T, files, n int) (*Base, []File) {
	t.Helper()
	b, err := Parse([]byte("formulas:\n  u: 'items.unique().length'\nviews:\n  - type: table\n    name: T\n    order: [formula.u]\n"))
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, n)
	for i := range items {
		items[i] = fmt.Sprintf("v%d", i)
	}
	fs := make([]File, files)
	for i := range fs {
		fs[i] = File{Path: fmt.Sprintf("n%d.md", i), Props: props("items", items)}
	}
	return b, fs
}

// TestUniqueOverManyValues: a formula with unique() over 40,000 values
// answers (it once gave no answer in 240 s: the method was quadratic).
func TestUniqueOverManyValues(t *testing.T) {
	t.Parallel()
	b, files := bigBase(t, 1, 40000)
	res, err := b.Query(t.Context(), "", files, time.Now())
	if err != nil || res.Partial || len(res.Rows) != 1 || res.Rows[0].Values["formula.u"] != 40000.0 {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestQueryStops: a query whose context has ended, or whose budget runs
// out, answers the rows it has, marked partial with the reason, instead
// of running on.
func TestQueryStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	b, files := bigBase(t, 10, 5000)
	res, err := b.Query(ctx, "", files, time.Now())
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "cancelled after 0 of 10 files") {
		t.Errorf("cancelled: %+v %v", res.Stopped, err)
	}
	// 200,000 steps: a file costs about 9,000 (5,000 for the list the
	// method is given, and unique counts its walk too), so the budget
	// runs out past 20 files.
	b, files = bigBase(t, 100, 5000)
	b.Budget = Budget{Steps: 200_000, Time: time.Hour}
	res, err = b.Query(t.Context(), "", files, time.Now())
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "budget of 200000 steps ran out after") || len(res.Rows) < 15 || len(res.Rows) >= 30 {
		t.Errorf("over budget: partial %v, %d rows, %q, %v", res.Partial, len(res.Rows), res.Stopped, err)
	}
	// Time runs out the same way (a nanosecond: at the first look).
	b.Budget = Budget{Time: time.Nanosecond}
	res, err = b.Query(t.Context(), "", files, time.Now())
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "time of 1ns ran out after 0 of 100 files") {
		t.Errorf("out of time: partial %v, %d rows, %q, %v", res.Partial, len(res.Rows), res.Stopped, err)
	}
}

// TestCancelMidQuery: a query cancelled while it runs stops at its next
// look at the context and answers what it has, marked partial. How long
// it ran on after the cancel is logged (go test -v -run
// TestCancelMidQuery ./bases); the looks come every 4,096 steps and every
// 1,024 values unique() walks.
func TestCancelMidQuery(t *testing.T) {
	t.Parallel()
	b, files := bigBase(t, 4000, 5000)
	b.Budget = Budget{Steps: 1 << 40, Time: time.Hour}
	ctx, cancel := context.WithCancel(t.Context())
	var at time.Time
	timer := time.AfterFunc(200*time.Millisecond, func() { at = time.Now(); cancel() })
	defer timer.Stop()
	res, err := b.Query(ctx, "", files, time.Now())
	if err != nil || !res.Partial || !strings.Contains(res.Stopped, "cancelled") {
		t.Fatalf("%d rows, partial %v, %q, %v", len(res.Rows), res.Partial, res.Stopped, err)
	}
	t.Logf("stopped %v after the cancel, with %d of %d rows", time.Since(at), len(res.Rows), len(files))
}
