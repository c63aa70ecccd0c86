package dataview

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/evalbudget"
)

// Budget defaults: a query may take this many evaluation steps and this
// long, whichever ends first; past either it answers what it has, marked
// partial. The caller's context (a tool call's deadline) stops it sooner.
const (
	DefaultSteps = 50_000_000
	DefaultTime  = 10 * time.Second
)

// MaxRows bounds the rows a query holds at once (FLATTEN makes them),
// unless Options say otherwise.
const MaxRows = 1_000_000

// QueryError is a query Dataview refuses while running it (a bad LIMIT,
// every row failing, a FROM that names no file).
type QueryError struct{ Msg string }

func (e *QueryError) Error() string { return e.Msg }

// Result is a query's answer: the values as Dataview gives them and the
// Markdown it renders for them.
type Result struct {
	Type    string
	Headers []string
	// Values are Dataview's values (rows, items, tasks or one value).
	Values   any
	Markdown string
	// Partial says the query stopped early (Stopped says why) and Values
	// hold what was done by then.
	Partial bool
	Stopped string
}

// Limits bound one query.
type Limits = evalbudget.Limits

type row struct {
	id   any
	page string // a page's row: its id is the page's link, made when read
	data *Object
}

// ident is the row's id.
func (r row) ident() any {
	if r.page != "" {
		return FileLink(r.page)
	}
	return r.id
}

type idMeaning struct {
	group bool
	name  string
	on    *idMeaning
}

func (s *snapshot) context(origin string, meter *evalbudget.Meter) *Context {
	this := s.page(origin)
	if this == nil {
		this = NewObject()
	}
	g := NewObject()
	g.Set("this", this)
	return &Context{links: &linkHandler{s, origin}, globals: g, g: s.v.g, meter: meter, maxRows: s.v.maxRows}
}

type linkHandler struct {
	s      *snapshot
	origin string
}

func (h *linkHandler) Resolve(p string) *Object {
	dest := h.s.v.resolve(p, h.origin)
	if dest == "" {
		return nil
	}
	return h.s.page(dest)
}

func (h *linkHandler) Normalize(p string) string {
	if dest := h.s.v.resolve(p, h.origin); dest != "" {
		return dest
	}
	return p
}

// matching is matchingSourcePaths: the pages a FROM names, in the order
// Dataview finds them.
func (s *snapshot) matching(src source, origin string) ([]string, error) {
	switch x := src.(type) {
	case tagSource:
		return s.d.paths(s.d.tags.get(strings.ToLower(x.tag))), nil
	case csvSource:
		return nil, &QueryError{"CSV sources are not supported: csv(" + x.path + ") names a file this server does not read as data"}
	case folderSource:
		f := x.folder
		if f == "" {
			return s.d.order[:len(s.d.order):len(s.d.order)], nil
		}
		if i, j := under(s.d.files, f); i < j { // a folder
			i, j = under(s.d.order, f)
			return s.d.order[i:j:j], nil
		}
		if _, ok := s.v.files[f]; ok {
			return []string{f}, nil
		}
		if _, ok := s.v.files[f+".md"]; ok {
			return []string{f + ".md"}, nil
		}
		return nil, nil
	case linkSource:
		full := s.v.resolve(x.file, origin)
		if full == "" {
			return s.d.paths(s.d.unresolved.get(x.file)), nil
		}
		if x.incoming {
			return s.d.linking(full), nil
		}
		if s.v.files[full] == nil {
			return nil, &QueryError{fmt.Sprintf("Could not find file %q during link lookup - does it exist?", x.file)}
		}
		return s.v.outgoing(full), nil
	case binSource:
		l, err := s.matching(x.l, origin)
		if err != nil {
			return nil, err
		}
		r, err := s.matching(x.r, origin)
		if err != nil {
			return nil, err
		}
		if x.op == "&" {
			in := setOf(l)
			var out []string
			for _, p := range r {
				if in[p] {
					out = append(out, p)
				}
			}
			return out, nil
		}
		out := slices.Clone(l)
		in := setOf(l)
		for _, p := range r {
			if !in[p] {
				in[p] = true
				out = append(out, p)
			}
		}
		return out, nil
	case negSource:
		child, err := s.matching(x.child, origin)
		if err != nil {
			return nil, err
		}
		in := setOf(child)
		var out []string
		for _, p := range s.d.order {
			if !in[p] {
				out = append(out, p)
			}
		}
		return out, nil
	}
	return nil, &QueryError{"unknown source"}
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// stopped carries a meter's stop out of a step with the rows done.
type stopped struct {
	why  string
	rows []row
}

// stepOut is what one data command made: its rows, the rows that
// failed, and a stop of the meter.
type stepOut struct {
	rows []row
	errs []string
	stop error
}

// each evaluates f for each row, calling keep with the values that
// evaluate; a row that fails is counted, a stop ends the walk.
func (o *stepOut) each(c *Context, rows []row, f field, keep func(r row, v any) error) {
	for _, r := range rows {
		v, err := c.eval(f, &scope{row: r.data})
		if isStop(err) {
			o.stop = err
			return
		}
		if err != nil {
			o.errs = append(o.errs, err.Error())
			continue
		}
		if err := keep(r, v); err != nil {
			o.stop = err
			return
		}
	}
}

func stepWhere(c *Context, st step, rows []row) stepOut {
	var o stepOut
	o.each(c, rows, st.f, func(r row, v any) error {
		if truthy(v) {
			o.rows = append(o.rows, r)
		}
		return nil
	})
	return o
}

func stepSort(c *Context, st step, rows []row) stepOut {
	var o stepOut
	type tagged struct {
		r    row
		keys []any
	}
	ts := make([]tagged, 0, len(rows))
rowsLoop:
	for _, r := range rows {
		keys := make([]any, len(st.sorts))
		for i, sf := range st.sorts {
			v, err := c.eval(sf.f, &scope{row: r.data})
			if isStop(err) {
				o.stop = err
				break rowsLoop
			}
			if err != nil {
				o.errs = append(o.errs, err.Error())
				continue rowsLoop
			}
			keys[i] = v
		}
		ts = append(ts, tagged{r, keys})
	}
	if o.stop == nil {
		o.stop = c.meter.Spend(len(ts) * 16)
	}
	norm := c.normalizer()
	jsSort(ts, func(a, b tagged) int {
		for i, sf := range st.sorts {
			cmp := compareValues(a.keys[i], b.keys[i], norm)
			if sf.desc {
				cmp = -cmp
			}
			if cmp != 0 {
				return cmp
			}
		}
		return 0
	})
	o.rows = make([]row, 0, len(ts))
	for _, t := range ts {
		o.rows = append(o.rows, t.r)
	}
	return o
}

func stepLimit(c *Context, st step, rows []row) (stepOut, error) {
	v, err := c.eval(st.amount, &scope{})
	if err != nil {
		return stepOut{}, &QueryError{"Failed to execute 'limit' statement: " + err.Error()}
	}
	n, ok := v.(float64)
	if !ok {
		return stepOut{}, &QueryError{fmt.Sprintf("Failed to execute 'limit' statement: limit should be a number, but got '%s' (%s)", typeOf(v), jsDisplay(v))}
	}
	i, j := jsSlice(len(rows), 0, n)
	return stepOut{rows: rows[i:j]}, nil
}

// stepGroup sorts the rows by key and makes one row per run of equal
// keys: {key, rows, [name]: key}.
func stepGroup(c *Context, st step, rows []row) stepOut {
	var o stepOut
	type keyed struct {
		r   row
		key any
	}
	ks := make([]keyed, 0, len(rows))
	o.each(c, rows, st.named.f, func(r row, v any) error {
		ks = append(ks, keyed{r, v})
		return nil
	})
	if o.stop == nil {
		o.stop = c.meter.Spend(len(ks) * 16)
	}
	norm := c.normalizer()
	jsSort(ks, func(a, b keyed) int { return compareValues(a.key, b.key, norm) })
	for i := 0; i < len(ks); {
		j := i + 1
		members := []any{ks[i].r.data}
		for ; j < len(ks) && compareValues(ks[j].key, ks[j-1].key, norm) == 0; j++ {
			members = append(members, ks[j].r.data)
		}
		g := NewObject()
		g.Set("key", ks[i].key)
		g.Set("rows", members)
		g.Set(st.named.name, ks[i].key) // a name "rows" or "key" wins, as in Dataview's object literal
		o.rows = append(o.rows, row{id: ks[i].key, data: g})
		i = j
	}
	return o
}

func stepFlatten(c *Context, st step, rows []row) stepOut {
	var o stepOut
	o.each(c, rows, st.named.f, func(r row, v any) error {
		vals, ok := v.([]any)
		if !ok {
			vals = []any{v}
		}
		if err := c.meter.Spend(len(vals)); err != nil {
			return err
		}
		if len(o.rows)+len(vals) > c.maxRows {
			return &evalbudget.Stopped{Why: fmt.Sprintf("the query made more than %d rows", c.maxRows)}
		}
		for _, x := range vals {
			d := r.data.overlay()
			d.Set(st.named.name, x)
			o.rows = append(o.rows, row{id: r.id, page: r.page, data: d})
		}
		return nil
	})
	return o
}

// sourceKind names a source as Dataview's types do.
func sourceKind(f field) string {
	switch f.(type) {
	case tagSource:
		return "tag"
	case linkSource:
		return "link"
	case negSource:
		return "negate"
	case binSource:
		return "binaryop"
	case csvSource:
		return "csv"
	}
	return "folder"
}

// executeCore runs the data commands top to bottom.
func executeCore(c *Context, rows []row, steps []step) ([]row, idMeaning, *stopped, error) {
	meaning := idMeaning{}
	for _, st := range steps {
		var o stepOut
		var err error
		switch st.kind {
		case "where":
			o = stepWhere(c, st, rows)
		case "sort":
			o = stepSort(c, st, rows)
		case "limit":
			o, err = stepLimit(c, st, rows)
		case "group":
			o = stepGroup(c, st, rows)
			m := meaning
			meaning = idMeaning{group: true, name: st.named.name, on: &m}
		case "flatten":
			o = stepFlatten(c, st, rows)
			if meaning.group && meaning.name == st.named.name && meaning.on != nil {
				meaning = *meaning.on
			}
		default:
			err = &QueryError{"Unrecognized query operation '" + sourceKind(st.f) + "'"}
		}
		if err != nil {
			return nil, meaning, nil, err
		}
		if o.stop != nil {
			return o.rows, meaning, &stopped{why: o.stop.Error(), rows: o.rows}, nil
		}
		if len(o.errs) >= len(rows) && len(rows) > 0 {
			return nil, meaning, nil, &QueryError{everyRowFailed(st.kind, o.errs)}
		}
		rows = o.rows
	}
	return rows, meaning, nil, nil
}

func everyRowFailed(op string, errs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Every row during operation '%s' failed with an error; first %d:\n", op, min(3, len(errs)))
	for _, e := range errs[:min(3, len(errs))] {
		b.WriteString("\n- " + e)
	}
	return b.String()
}

// jsDisplay is how JavaScript's template literal shows a value.
func jsDisplay(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *Object:
		return "[object Object]"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = jsDisplay(e)
			}
		}
		return strings.Join(parts, ",")
	case time.Time:
		return isoDate(x)
	case Duration:
		return x.ISO()
	}
	return toText(v, false)
}

// extract evaluates a table's or list's fields for each row; a row whose
// field fails is dropped, and if all do, the query fails.
func extract(c *Context, rows []row, fields []field) ([][]any, []row, error) {
	var out [][]any
	var kept []row
	var errs []string
rowsLoop:
	for _, r := range rows {
		vals := make([]any, len(fields))
		for i, f := range fields {
			v, err := c.eval(f, &scope{row: r.data})
			if isStop(err) {
				return out, kept, err
			}
			if err != nil {
				errs = append(errs, err.Error())
				continue rowsLoop
			}
			vals[i] = v
		}
		out = append(out, vals)
		kept = append(kept, r)
	}
	if len(errs) >= len(rows) && len(rows) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "Every row during final data extraction failed with an error; first %d:\n", max(len(errs), 3))
		for _, e := range errs[:min(3, len(errs))] {
			b.WriteString("\n- " + e)
		}
		return nil, nil, &QueryError{b.String()}
	}
	return out, kept, nil
}

// partialRows is how many rows a partial answer keeps.
const partialRows = 10_000

// grace is what the final extraction may spend when the query's own
// budget ran out (so that a partial answer still shows its rows).
var grace = Limits{Steps: 2_000_000, Time: time.Second}

// Query runs a DQL query from the page at origin ("" for none).
func (v *Vault) Query(ctx context.Context, text, origin string, lim Limits) (*Result, error) {
	if err := checkBounds(text); err != nil {
		return nil, err
	}
	parsed, perr := v.parsed.parse(v.g.query, text)
	if perr != nil {
		return nil, perr
	}
	q := parsed.(*query)
	s, done := v.read()
	defer done()
	meter := evalbudget.New(ctx, lim, Limits{Steps: DefaultSteps, Time: DefaultTime})
	c := s.context(origin, meter)
	paths, err := s.matching(q.source, origin)
	if err != nil {
		return nil, err
	}
	rows := make([]row, 0, len(paths))
	if q.header.kind == "task" {
		rows = s.taskRows(paths)
	} else {
		// Each row's page object is its own, not kept in s.objects: the
		// rows are each page once, and a page a link leads to later is
		// made again (no object is changed by a query).
		for _, p := range paths {
			if pg := s.v.files[p]; pg != nil {
				rows = append(rows, row{page: p, data: s.pageObjectOf(pg)})
			}
		}
	}
	rows, meaning, stop, err := executeCore(c, rows, q.steps)
	if err != nil {
		return nil, err
	}
	res := &Result{Type: q.header.kind}
	if stop != nil {
		// A partial answer shows its first rows, extracted on a small
		// budget of its own.
		res.Partial, res.Stopped = true, stop.why
		c.meter = evalbudget.New(ctx, grace, grace)
		rows = rows[:min(len(rows), partialRows)]
	}
	switch q.header.kind {
	case "task":
		res.Values = taskGroupings(meaning, rows)
		res.Markdown = markdownTasks(res.Values, 0)
		return res, nil
	case "table":
		err = renderTable(c, q.header, meaning, rows, res)
	case "list":
		err = renderList(c, q.header, rows, res)
	default:
		err = renderCalendar(c, q.header, rows, res)
	}
	if err != nil && !isStop(err) {
		return nil, err
	} else if err != nil && !res.Partial {
		res.Partial, res.Stopped = true, err.Error()
	}
	return res, nil
}

// taskRows are the tasks of the pages, each with its page's fields
// beside its own, as Dataview's TASK query sees them.
func (s *snapshot) taskRows(paths []string) []row {
	var rows []row
	for _, p := range paths {
		page := s.page(p)
		if page == nil {
			continue
		}
		f, _ := page.Get("file")
		tasks, _ := f.(*Object).Get("tasks")
		for _, t := range tasks.([]any) {
			// The task's fields, then its page's that it has not: read
			// through to both (Dataview copies; nothing here changes
			// either).
			task := t.(*Object)
			keys := slices.Clone(task.Keys())
			for _, k := range page.Keys() {
				if !task.Has(k) {
					keys = append(keys, k)
				}
			}
			rows = append(rows, row{id: p, data: lazyObject(keys, func(k string) any {
				if v, ok := task.Get(k); ok {
					return v
				}
				v, _ := page.Get(k)
				return v
			})})
		}
	}
	return rows
}

func renderTable(c *Context, h header, meaning idMeaning, rows []row, res *Result) error {
	fields := make([]field, len(h.fields))
	names := make([]string, len(h.fields))
	for i, f := range h.fields {
		fields[i], names[i] = f.f, f.name
	}
	vals, kept, err := extract(c, rows, fields)
	if err != nil && !isStop(err) {
		return err
	}
	table := [][]any{}
	if h.showID {
		id := "File"
		if meaning.group {
			id = meaning.name
		}
		res.Headers = append([]string{id}, names...)
		for i, r := range kept {
			table = append(table, append([]any{r.ident()}, vals[i]...))
		}
	} else {
		res.Headers = names
		table = append(table, vals...)
	}
	res.Values = table
	res.Markdown = markdownTable(res.Headers, table)
	return err
}

func renderList(c *Context, h header, rows []row, res *Result) error {
	var fields []field
	if h.format != nil {
		fields = []field{h.format}
	}
	vals, kept, err := extract(c, rows, fields)
	if err != nil && !isStop(err) {
		return err
	}
	items := []any{}
	for i, r := range kept {
		switch {
		case h.showID && h.format != nil:
			items = append(items, &ListPair{Key: r.ident(), Value: vals[i][0]})
		case h.format != nil:
			items = append(items, vals[i][0])
		default:
			items = append(items, r.ident())
		}
	}
	res.Values = items
	res.Markdown = markdownList(items)
	return err
}

func renderCalendar(c *Context, h header, rows []row, res *Result) error {
	fields := []field{h.fields[0].f, indexField{varField{"file"}, litField{"link"}}}
	vals, _, err := extract(c, rows, fields)
	if err != nil && !isStop(err) {
		return err
	}
	days := []any{}
	for _, v := range vals {
		o := NewObject()
		o.Set("date", v[0])
		o.Set("link", v[1])
		days = append(days, o)
	}
	res.Values = days
	return err
}

// group is one group of a TASK query's answer.
type group struct {
	Key  any
	Rows any
}

func taskGroupings(m idMeaning, rows []row) any {
	data := make([]*Object, len(rows))
	for i, r := range rows {
		data[i] = r.data
	}
	return groupTasks(m, data)
}

func groupTasks(m idMeaning, rows []*Object) any {
	if !m.group {
		out := make([]*Object, len(rows))
		copy(out, rows)
		return out
	}
	var out []group
	for _, r := range rows {
		key, _ := r.Get(m.name)
		sub, _ := r.Get("rows")
		var subRows []*Object
		for _, x := range sub.([]any) {
			subRows = append(subRows, x.(*Object))
		}
		out = append(out, group{Key: key, Rows: groupTasks(*m.on, subRows)})
	}
	if out == nil {
		return []group{}
	}
	return out
}

// Inline evaluates an inline expression (the text after "= ") on the
// page at origin.
func (v *Vault) Inline(ctx context.Context, expr, origin string, lim Limits) (*Result, error) {
	if err := checkBounds(expr); err != nil {
		return nil, err
	}
	parsed, perr := v.parsedInline.parse(v.g.field, expr)
	if perr != nil {
		return nil, perr
	}
	s, done := v.read()
	defer done()
	meter := evalbudget.New(ctx, lim, Limits{Steps: DefaultSteps, Time: DefaultTime})
	c := s.context(origin, meter)
	val, err := c.eval(parsed, &scope{})
	if err != nil {
		return nil, &QueryError{err.Error()}
	}
	return &Result{Type: "inline", Values: val, Markdown: toText(val, false)}, nil
}
