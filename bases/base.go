// Package bases reads Obsidian Bases (.base files: YAML with filters,
// formulas and views) and answers a view natively: the files its filters
// select, with the values of the properties and formulas its columns
// show, sorted, grouped and limited as the view says. The expression
// language is evaluated for the documented functions listed in Functions;
// anything else is an error naming it, never a guess.
//
// It does no I/O.
package bases

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/evalbudget"
)

// Base is a parsed .base file.
type Base struct {
	Filters  any               `yaml:"filters"`
	Formulas map[string]string `yaml:"formulas"`
	Views    []View            `yaml:"views"`
	// Summaries are the base's own summary formulas; a view's Summaries
	// name one (or a built-in) per column. Neither is computed here yet:
	// a view that shows summaries is refused as unsupported, never
	// answered without them.
	Summaries map[string]string `yaml:"summaries"`
	// Types are the vault's property types (.obsidian/types.json), by
	// name, set by the caller: a text property typed date is a date.
	Types map[string]string `yaml:"-"`
	// Budget bounds a query's steps and time; zero fields take
	// DefaultBudget and MaxEvalTime.
	Budget Budget `yaml:"-"`
}

// Budget is what one query may spend.
type Budget = evalbudget.Limits

// View is one view of a base.
type View struct {
	Type    string   `yaml:"type" json:"type"`
	Name    string   `yaml:"name" json:"name"`
	Limit   int      `yaml:"limit" json:"limit,omitempty"`
	Filters any      `yaml:"filters" json:"-"`
	Order   []string `yaml:"order" json:"columns,omitempty"`
	Sort    []struct {
		Property  string `yaml:"property"`
		Direction string `yaml:"direction"`
	} `yaml:"sort" json:"-"`
	GroupBy *struct {
		Property  string `yaml:"property"`
		Direction string `yaml:"direction"`
	} `yaml:"groupBy" json:"-"`
	Summaries map[string]string `yaml:"summaries" json:"-"`
}

// Parse reads a .base file.
func Parse(data []byte) (*Base, error) {
	if len(data) > MaxFileSize {
		return nil, errBound("a base of %d bytes is over the limit of %d", len(data), MaxFileSize)
	}
	var b Base
	if err := yaml.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("is not a base: %v", err)
	}
	return &b, nil
}

// Row is one file a view selects.
type Row struct {
	Path   string         `json:"path" jsonschema:"vault-relative path of the file"`
	Group  any            `json:"group,omitempty" jsonschema:"its group's value, when the view groups"`
	Values map[string]any `json:"values" jsonschema:"the view's columns: property, file.* or formula.* name → value"`
}

// Result is a view's answer.
type Result struct {
	// Path is the base's, filled by the caller that read it.
	Path    string   `json:"path" jsonschema:"vault-relative path of the base"`
	View    string   `json:"view" jsonschema:"the view's name"`
	Columns []string `json:"columns" jsonschema:"the columns, in the view's order"`
	Total   int      `json:"total" jsonschema:"rows in all, after the view's limit"`
	Rows    []Row    `json:"rows"`
	// Summaries are the view's summaries over its rows; Groups over each
	// group's, when it groups.
	Summaries map[string]any   `json:"summaries,omitempty" jsonschema:"the view's summaries: column → value over its rows"`
	Groups    []GroupSummaries `json:"groups,omitempty" jsonschema:"when the view groups: each group's summaries"`
	// Partial is set when the evaluation stopped before every file was
	// seen (cancelled, out of time, or over its budget); Stopped says why.
	Partial bool   `json:"partial,omitempty" jsonschema:"true when the evaluation stopped early: the rows are those found until then"`
	Stopped string `json:"stopped,omitempty" jsonschema:"why the evaluation stopped early"`
}

// noViewError is a view asked for by a name the base does not have.
type noViewError struct{ msg string }

func (e *noViewError) Error() string { return e.msg }

// IsNoView reports whether err is about a view the base does not have.
func IsNoView(err error) bool {
	var n *noViewError
	return errors.As(err, &n)
}

// IsUnsupported reports whether err is about something the native
// evaluation does not do.
func IsUnsupported(err error) bool {
	var u *unsupportedError
	return errors.As(err, &u)
}

// Query answers the view named view (the first when ""), over files, at
// the time now. It stops when ctx ends or its budget (DefaultBudget) runs
// out, and answers with the rows it has then, marked Partial, without
// summaries.
func (b *Base) Query(ctx context.Context, view string, files []File, now time.Time) (Result, error) {
	v, err := b.view(view)
	if err != nil {
		return Result{}, err
	}
	if err := b.checkAll(v); err != nil {
		return Result{}, err
	}
	if err := b.checkSummaries(v); err != nil {
		return Result{}, err
	}
	types := map[string]string{}
	for k, t := range b.Types {
		types[strings.ToLower(k)] = t
	}
	cols := v.Order
	if len(cols) == 0 {
		cols = []string{"file.name"}
	}
	var rows []row
	spent := newBudget(ctx, b.Budget)
	var stopped error
	for i := range files {
		e := &env{f: &files[i], formulas: b.Formulas, types: types, now: now, done: map[string]any{}, busy: map[string]bool{}, budget: spent}
		r, keep, err := b.row(e, v, cols)
		if isStopped(err) {
			stopped = fmt.Errorf("%w after %d of %d files", err, i, len(files))
			break
		}
		if err != nil {
			return Result{}, err
		}
		if keep {
			rows = append(rows, r)
		}
	}
	sortRows(rows, v)
	if v.Limit > 0 && len(rows) > v.Limit {
		rows = rows[:v.Limit]
	}
	res := Result{View: v.Name, Columns: cols, Total: len(rows), Rows: make([]Row, len(rows))}
	for i, r := range rows {
		res.Rows[i] = r.Row
	}
	if stopped != nil {
		res.Partial, res.Stopped = true, stopped.Error()+"; these are the rows found until then, without summaries"
		return res, nil
	}
	if len(v.Summaries) == 0 {
		return res, nil
	}
	// Over the rows the view shows, and over each group's (the rows are
	// sorted by group, so a group's rows stand together).
	values := func(rs []row) map[string][]any {
		out := map[string][]any{}
		for _, r := range rs {
			for c := range v.Summaries {
				out[c] = append(out[c], r.sums[c])
			}
		}
		return out
	}
	if res.Summaries, err = b.summarise(v, values(rows), now); err != nil {
		return Result{}, err
	}
	for from := 0; v.GroupBy != nil && from < len(rows); {
		to := from + 1
		for to < len(rows) && equal(rows[to].group, rows[from].group) {
			to++
		}
		sums, err := b.summarise(v, values(rows[from:to]), now)
		if err != nil {
			return Result{}, err
		}
		res.Groups = append(res.Groups, GroupSummaries{Group: rows[from].Group, Summaries: sums})
		from = to
	}
	return res, nil
}

// view is the view named name, the first when name is "".
func (b *Base) view(name string) (View, error) {
	if len(b.Views) == 0 {
		return View{}, fmt.Errorf("the base has no views")
	}
	if name == "" {
		return b.Views[0], nil
	}
	var names []string
	for _, x := range b.Views {
		if x.Name == name {
			return x, nil
		}
		names = append(names, x.Name)
	}
	return View{}, &noViewError{fmt.Sprintf("the base has no view %q (views: %s)", name, strings.Join(names, ", "))}
}

// sortRows puts rows in the view's order: by group, then by its sort
// keys, then (without keys) by path; empty values last either way.
func sortRows(rows []row, v View) {
	sort.SliceStable(rows, func(i, j int) bool {
		if v.GroupBy != nil {
			if c := nilsLast(rows[i].group, rows[j].group, strings.EqualFold(v.GroupBy.Direction, "DESC")); c != 0 {
				return c < 0
			}
		}
		for k, s := range v.Sort {
			if c := nilsLast(rows[i].keys[k], rows[j].keys[k], strings.EqualFold(s.Direction, "DESC")); c != 0 {
				return c < 0
			}
		}
		return len(v.Sort) == 0 && rows[i].Path < rows[j].Path
	})
}

// nilsLast compares a and b, descending when desc, with nil after every
// value either way.
func nilsLast(a, b any, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	c := compare(a, b)
	if desc {
		c = -c
	}
	return c
}

// row is one file's row of a view, with what sorting, grouping and
// summaries need.
type row struct {
	Row
	keys  []any
	group any
	sums  map[string]any // the raw values of the summarised columns
}

// row evaluates the view for e's file: keep is false when a filter leaves
// the file out.
func (b *Base) row(e *env, v View, cols []string) (r row, keep bool, err error) {
	for _, f := range []any{b.Filters, v.Filters} {
		ok, err := e.filter(f)
		if err != nil || !ok {
			return r, false, err
		}
	}
	r = row{Row: Row{Path: e.f.Path, Values: map[string]any{}}}
	for _, c := range cols {
		val, err := e.property(c)
		if err != nil {
			return r, false, err
		}
		r.Values[c] = jsonValue(val)
	}
	for _, s := range v.Sort {
		val, err := e.property(s.Property)
		if err != nil {
			return r, false, err
		}
		r.keys = append(r.keys, val)
	}
	if v.GroupBy != nil {
		val, err := e.property(v.GroupBy.Property)
		if err != nil {
			return r, false, err
		}
		r.group, r.Group = val, jsonValue(val)
	}
	for c := range v.Summaries {
		val, err := e.property(c)
		if err != nil {
			return r, false, err
		}
		if r.sums == nil {
			r.sums = map[string]any{}
		}
		r.sums[c] = val
	}
	return r, true, nil
}

// filter evaluates a filter: an expression, or {and|or|not: [filters]}.
func (e *env) filter(f any) (bool, error) {
	switch f := f.(type) {
	case nil:
		return true, nil
	case string:
		n, err := parse(f)
		if err != nil {
			return false, fmt.Errorf("filter %q: %v", f, err)
		}
		v, err := e.eval(n)
		return truthy(v), err
	case map[string]any:
		if len(f) != 1 {
			return false, fmt.Errorf("a filter group has exactly one of and, or, not")
		}
		for k, list := range f {
			items, ok := list.([]any)
			if !ok {
				return false, fmt.Errorf("%s: takes a list of filters", k)
			}
			for _, it := range items {
				ok, err := e.filter(it)
				if err != nil {
					return false, err
				}
				switch {
				case k == "and" && !ok:
					return false, nil
				case k == "or" && ok:
					return true, nil
				case k == "not" && ok:
					return false, nil
				}
			}
			switch k {
			case "and", "not":
				return true, nil
			case "or":
				return false, nil
			}
			return false, fmt.Errorf("%q is not a filter group: use and, or or not", k)
		}
	}
	return false, fmt.Errorf("a filter is an expression or a group of and, or, not")
}

// property is a column's value: file.x, formula.x, note.x or a note
// property's name, which may hold spaces.
func (e *env) property(id string) (any, error) {
	if rest, ok := strings.CutPrefix(id, "file."); ok {
		return e.field(fileObj{}, rest)
	}
	if rest, ok := strings.CutPrefix(id, "formula."); ok {
		return e.formula(rest)
	}
	if rest, ok := strings.CutPrefix(id, "note."); ok {
		return e.prop(rest), nil
	}
	return e.prop(id), nil
}

// jsonValue is v as the answer carries it: dates as text.
func jsonValue(v any) any {
	switch v := v.(type) {
	case time.Time:
		return formatDate(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonValue(x)
		}
		return out
	case *regex:
		return v.src
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonValue(x)
		}
		return out
	case fileObj, noteObj, formulaObj:
		return nil
	}
	return v
}
