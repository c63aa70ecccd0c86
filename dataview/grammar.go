package dataview

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The expression AST.
type (
	field    any
	litField struct{ v any }
	varField struct{ name string }
	negField struct{ child field }
	binField struct {
		op   string
		l, r field
	}
	listField struct{ vals []field }
	objField  struct {
		keys []string
		vals []field
	}
	lambdaField struct {
		args []string
		body field
	}
	funcField struct {
		fn   field
		args []field
	}
	indexField struct{ obj, idx field }
)

// Sources of a FROM.
type (
	source       any
	tagSource    struct{ tag string }
	folderSource struct{ folder string }
	linkSource   struct {
		file     string
		incoming bool
	}
	csvSource struct{ path string }
	negSource struct{ child source }
	binSource struct {
		op   string
		l, r source
	}
)

// durationUnits is Dataview's table of duration words.
var durationUnits = map[string]int{
	"year": uYears, "years": uYears, "yr": uYears, "yrs": uYears,
	"month": uMonths, "months": uMonths, "mo": uMonths, "mos": uMonths,
	"week": uWeeks, "weeks": uWeeks, "wk": uWeeks, "wks": uWeeks, "w": uWeeks,
	"day": uDays, "days": uDays, "d": uDays,
	"hour": uHours, "hours": uHours, "hr": uHours, "hrs": uHours, "h": uHours,
	"minute": uMinutes, "minutes": uMinutes, "min": uMinutes, "mins": uMinutes, "m": uMinutes,
	"second": uSeconds, "seconds": uSeconds, "sec": uSeconds, "secs": uSeconds, "s": uSeconds,
}

var dateShorthands = []string{"now", "today", "yesterday", "tomorrow", "sow", "start-of-week", "eow", "end-of-week",
	"soy", "start-of-year", "eoy", "end-of-year", "som", "start-of-month", "eom", "end-of-month"}

// keywords cannot be variables (row.x reaches a field of that name).
var keywords = []string{"FROM", "WHERE", "LIMIT", "GROUP", "FLATTEN"}

// byLength matches one of words, longest first, as Dataview's
// alternatives do, so that "min" is not read as "m": one regular
// expression, whose alternation is tried in order as Parsimmon's alt is.
func byLength(words []string) *parser {
	ws := slices.Clone(words)
	slices.SortStableFunc(ws, func(a, b string) int { return len(b) - len(a) })
	for i, w := range ws {
		ws[i] = regexp.QuoteMeta(w)
	}
	return rx(strings.Join(ws, "|"), 0)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out) // a fixed order before the stable length sort
	return out
}

// grammar is Dataview's expression and query languages. Dates written
// as shorthands (today, eom) are read at parse time, as Dataview does,
// from now in loc.
type grammar struct {
	loc *time.Location
	now func() time.Time

	number, str_, boolean, tag, identifier, link, embedLink *parser
	date, datePlus, duration                                *parser
	source                                                  *parser
	field, inlineField                                      *parser
	query                                                   *parser
	// parts of the query language, which tests read alone
	queryType, comment, namedField, sortField *parser
}

func newGrammar(loc *time.Location, now func() time.Time) *grammar {
	g := &grammar{loc: loc, now: now}
	comma := str(",").trim(optWhitespace)

	g.number = rx(`-?[0-9]+(?:\.[0-9]+)?`, 0).mapTo(func(v any) any {
		f, _ := strconv.ParseFloat(v.(string), 64)
		return f
	}).desc("number")

	escape := str(`\`).then(anyChar).mapTo(func(v any) any {
		switch c := v.(string); c {
		case `"`, `\`:
			return c
		default:
			return `\` + c
		}
	})
	g.str_ = str(`"`).then(alt(escape, noneOf(`"\`)).atLeast(0).mapTo(func(v any) any {
		var b strings.Builder
		for _, s := range v.([]any) {
			b.WriteString(s.(string))
		}
		return b.String()
	})).skip(str(`"`)).desc("string")

	g.boolean = rx(`true|false|True|False`, 0).mapTo(func(v any) any { return strings.ToLower(v.(string)) == "true" }).desc("boolean ('true' or 'false')")

	g.tag = seqMap(func(v []any) any { return "#" + joinStrings(v[1]) },
		str("#"), rx(`[^\x{2000}-\x{206F}\x{2E00}-\x{2E7F}'!"#$%&()*+,.:;<=>?@^`+"`"+`{|}~\[\]\\\s]`, 0).desc("text").many(),
	).desc("tag ('#hello/stuff')")

	g.identifier = seqMap(func(v []any) any { return v[0].(string) + joinStrings(v[1]) },
		alt(rx(`\p{L}`, 0), emoji.desc("text")),
		alt(rx(`[0-9\p{L}_-]`, 0), emoji.desc("text")).many(),
	).desc("variable identifier")

	g.link = rx(`\[\[([^\[\]]*?)\]\]`, 1).mapTo(func(v any) any { return parseInnerLink(v.(string)) }).desc("file link")
	g.embedLink = seqMap(func(v []any) any {
		l := v[1].(*Link)
		if len(v[0].([]any)) > 0 {
			c := *l
			c.Embed = true
			return &c
		}
		return l
	}, str("!").atMost(1), g.link).desc("file link")

	plusMinus := rx(`\+|-`, 0).desc("'+' or '-'")
	mulDiv := rx(`\*|/|%`, 0).desc("'*' or '/' or '%'")
	compareOp := rx(`>=|<=|!=|>|<|=`, 0).desc("'>=' or '<=' or '!=' or '=' or '>' or '<'")
	boolOp := rx(`(?i:and|or|&|\|)`, 0).mapTo(func(v any) any {
		switch strings.ToLower(v.(string)) {
		case "and":
			return "&"
		case "or":
			return "|"
		}
		return v
	}).desc("'and' or 'or'")

	g.buildDates()
	g.buildDuration()
	g.buildSources(boolOp)
	g.buildFields(comma, g.boolean, plusMinus, mulDiv, compareOp, boolOp)
	g.buildInline(comma, g.boolean)
	g.buildQuery()
	return g
}

func joinStrings(v any) string {
	var b strings.Builder
	for _, s := range v.([]any) {
		b.WriteString(s.(string))
	}
	return b.String()
}

// splitOnUnescapedPipe splits a link's inside at its first unescaped |.
func splitOnUnescapedPipe(link string) (string, string, bool) {
	for i := 0; i < len(link); i++ {
		if link[i] == '|' && (i == 0 || link[i-1] != '\\') {
			return strings.ReplaceAll(link[:i], `\|`, "|"), link[i+1:], true
		}
	}
	return strings.ReplaceAll(link, `\|`, "|"), "", false
}

func parseInnerLink(raw string) *Link {
	l, d, _ := splitOnUnescapedPipe(raw)
	return inferLink(l, false, d)
}

type partialDate struct {
	y, mo, d, h, mi, s, ms int
	zone                   *time.Location
}

func (g *grammar) buildDates() {
	two := rx(`\d{2}`, 0)
	atoi := func(v any) int { n, _ := strconv.Atoi(v.(string)); return n }
	root := seqMap(func(v []any) any {
		return &partialDate{y: atoi(v[0]), mo: atoi(v[2]), d: 1}
	}, rx(`\d{4}`, 0), str("-"), two).desc("date in format YYYY-MM[-DDTHH-MM-SS.MS]")
	setter := func(prefix string, set func(p *partialDate, n int)) func(*partialDate) *parser {
		return func(p *partialDate) *parser {
			return seqMap(func(v []any) any { c := *p; set(&c, atoi(v[1])); return &c }, str(prefix), two)
		}
	}
	steps := []func(*partialDate) *parser{
		setter("-", func(p *partialDate, n int) { p.d = n }),
		setter("T", func(p *partialDate, n int) { p.h = n }),
		setter(":", func(p *partialDate, n int) { p.mi = n }),
		setter(":", func(p *partialDate, n int) { p.s = n }),
		func(p *partialDate) *parser {
			return alt(seqMap(func(v []any) any { c := *p; c.ms = atoi(v[1]); return &c }, str("."), rx(`\d{3}`, 0)), succeed(p))
		},
		func(p *partialDate) *parser {
			return alt(
				seqMap(func(v []any) any { c := *p; c.zone = fixedZone(v[0].(string), v[1].(string)); return &c },
					str("+").or(str("-")), rx(`\d{1,2}(?::\d{2})?`, 0)),
				seqMap(func(v []any) any { c := *p; c.zone = utcZone; return &c }, str("Z")),
				seqMap(func(v []any) any {
					c := *p
					loc, err := time.LoadLocation(v[1].(string))
					if err != nil {
						return nil
					}
					c.zone = loc
					return &c
				}, str("["), rx(`[0-9A-Za-z+\-/]+`, 0), str("]")),
			)
		},
	}
	// chainOpt: each step applies if it parses, else the date so far stands.
	chained := &parser{fn: func(in string, i int) reply {
		r := root.run(in, i)
		if !r.ok {
			return r
		}
		for _, step := range steps {
			if r.val == nil {
				break
			}
			next := step(r.val.(*partialDate)).run(in, r.idx)
			if !next.ok {
				return r
			}
			r = next
		}
		return r
	}}
	g.date = chained.chain(func(v any) *parser {
		p, _ := v.(*partialDate)
		if p == nil {
			return fail("valid date")
		}
		loc := g.loc
		if p.zone != nil {
			loc = p.zone
		}
		t, ok := dateFromParts(loc, p.y, p.mo, p.d, p.h, p.mi, p.s, p.ms)
		if !ok {
			return fail("valid date")
		}
		return succeed(t)
	}).desc("date in format YYYY-MM[-DDTHH-MM-SS.MS]")

	g.datePlus = alt(
		byLength(dateShorthands).mapTo(func(v any) any { return g.shorthand(v.(string)) }),
		g.date,
	).desc("date in format YYYY-MM[-DDTHH-MM-SS.MS] or in shorthand")
}

func (g *grammar) shorthand(s string) time.Time {
	now := g.now().In(g.loc)
	switch s {
	case "now":
		return now
	case "today":
		return startOf(now, "day")
	case "yesterday":
		return startOf(now, "day").AddDate(0, 0, -1)
	case "tomorrow":
		return startOf(now, "day").AddDate(0, 0, 1)
	case "sow", "start-of-week":
		return startOf(now, "week")
	case "eow", "end-of-week":
		return endOf(now, "week")
	case "soy", "start-of-year":
		return startOf(now, "year")
	case "eoy", "end-of-year":
		return endOf(now, "year")
	case "som", "start-of-month":
		return startOf(now, "month")
	}
	return endOf(now, "month")
}

func (g *grammar) buildDuration() {
	unit := byLength(keys(durationUnits))
	one := seqMap(func(v []any) any {
		return durOf(durationUnits[v[2].(string)], v[0].(float64))
	}, g.number, optWhitespace, unit)
	g.duration = one.sepBy1(str(",").trim(optWhitespace).or(optWhitespace)).mapTo(func(v any) any {
		ds := v.([]any)
		d := ds[0].(Duration)
		for _, x := range ds[1:] {
			d = d.plus(x.(Duration))
		}
		return d
	}).desc("duration like 4hr2min")
}

func (g *grammar) buildSources(boolOp *parser) {
	src := lazy()
	atom := lazy()
	tagS := g.tag.mapTo(func(v any) any { return tagSource{v.(string)} })
	csvS := seqMap(func(v []any) any { return csvSource{v[1].(string)} }, str("csv(").skip(optWhitespace), g.str_, str(")"))
	inS := g.link.mapTo(func(v any) any { return linkSource{file: v.(*Link).Path, incoming: true} })
	outS := seqMap(func(v []any) any { return linkSource{file: v[1].(*Link).Path} }, str("outgoing(").skip(optWhitespace), g.link, str(")"))
	folderS := g.str_.mapTo(func(v any) any { return folderSource{v.(string)} })
	parens := seqMap(func(v []any) any { return v[2] }, str("("), optWhitespace, src, optWhitespace, str(")"))
	neg := seqMap(func(v []any) any { return negSource{v[1]} }, alt(str("-"), str("!")), atom)
	atom.define(alt(parens, neg, outS, inS, folderS, tagS, csvS))
	src.define(binaryChain(atom, boolOp, func(l any, op string, r any) any { return binSource{op, l, r} }))
	g.source = src
}

// binaryChain is createBinaryParser: left-associative, whitespace around
// the operator.
func binaryChain(child, sep *parser, combine func(l any, op string, r any) any) *parser {
	return seqMap(func(v []any) any {
		node := v[0]
		for _, x := range v[1].([]any) {
			r := x.([]any)
			node = combine(node, r[1].(string), r[3])
		}
		return node
	}, child, seq(optWhitespace, sep, optWhitespace, child).many())
}

type postfix struct {
	kind  string
	name  string
	index field
	args  []field
}

func (g *grammar) buildFields(comma, boolean, plusMinus, mulDiv, compareOp, boolOp *parser) {
	fieldP := lazy()
	indexP := lazy()
	lit := func(p *parser) *parser { return p.mapTo(func(v any) any { return litField{v} }) }

	variable := g.identifier.chain(func(v any) *parser {
		if slices.Contains(keywords, strings.ToUpper(v.(string))) {
			return fail("Variable fields cannot be a keyword (" + strings.Join(keywords, " or ") + ")")
		}
		return succeed(varField{v.(string)})
	}).desc("variable")
	dateF := seqMap(func(v []any) any { return litField{v[2]} }, str("date("), optWhitespace, g.datePlus, optWhitespace, str(")")).desc("date")
	durF := seqMap(func(v []any) any { return litField{v[2]} }, str("dur("), optWhitespace, g.duration, optWhitespace, str(")")).desc("duration")
	nullF := str("null").mapTo(func(any) any { return litField{nil} })
	listF := fieldP.sepBy(comma).wrap(str("[").skip(optWhitespace), optWhitespace.then(str("]"))).
		mapTo(func(v any) any { return listField{toFields(v)} }).desc("list ('[1, 2, 3]')")
	objF := seqMap(func(v []any) any { return [2]any{v[0], v[2]} }, g.identifier.or(g.str_), str(":").trim(optWhitespace), fieldP).
		sepBy(comma).wrap(str("{").skip(optWhitespace), optWhitespace.then(str("}"))).
		mapTo(func(v any) any {
			o := objField{}
			for _, e := range v.([]any) {
				kv := e.([2]any)
				k := kv[0].(string)
				if i := slices.Index(o.keys, k); i >= 0 {
					o.vals[i] = kv[1]
					continue
				}
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, kv[1])
			}
			return o
		}).desc("object ('{ a: 1, b: 2 }')")
	lambdaF := seqMap(func(v []any) any {
		var args []string
		for _, a := range v[0].([]any) {
			args = append(args, a.(string))
		}
		return lambdaField{args, v[2]}
	}, g.identifier.sepBy(comma).wrap(str("(").trim(optWhitespace), str(")").trim(optWhitespace)), str("=>").trim(optWhitespace), fieldP)
	parensF := seqMap(func(v []any) any { return v[2] }, str("("), optWhitespace, fieldP, optWhitespace, str(")"))
	negF := seqMap(func(v []any) any { return negField{v[1]} }, str("!"), indexP).desc("negated field")

	atom := alt(
		lit(g.embedLink), negF, lit(g.link), listF, objF, lambdaF, parensF,
		lit(boolean), lit(g.number), lit(g.str_), dateF, durF, nullF, variable,
	)
	dot := seqMap(func(v []any) any { return postfix{kind: "dot", name: v[1].(string)} }, str("."), g.identifier)
	idx := seqMap(func(v []any) any { return postfix{kind: "index", index: v[2]} }, str("["), optWhitespace, fieldP, optWhitespace, str("]"))
	call := seqMap(func(v []any) any { return postfix{kind: "function", args: toFields(v[2])} }, str("("), optWhitespace, fieldP.sepBy(comma), optWhitespace, str(")"))
	indexP.define(seqMap(func(v []any) any {
		res := v[0]
		for _, x := range v[1].([]any) {
			p := x.(postfix)
			switch p.kind {
			case "dot":
				res = indexField{res, litField{p.name}}
			case "index":
				res = indexField{res, p.index}
			default:
				res = funcField{res, p.args}
			}
		}
		return res
	}, atom, alt(dot, idx, call).many()))

	bin := func(l any, op string, r any) any { return binField{op, l, r} }
	mul := binaryChain(indexP, mulDiv, bin)
	add := binaryChain(mul, plusMinus, bin)
	cmp := binaryChain(add, compareOp, bin)
	boolean2 := binaryChain(cmp, boolOp, bin)
	fieldP.define(boolean2)
	g.field = fieldP
}

func toFields(v any) []field {
	xs := v.([]any)
	out := make([]field, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func (g *grammar) buildInline(comma, boolean *parser) {
	atom := alt(
		g.date,
		g.duration.mapTo(func(v any) any { return normalizeDuration(v.(Duration)) }),
		g.str_,
		g.tag,
		g.embedLink,
		boolean,
		g.number,
		str("null").mapTo(func(any) any { return nil }),
	)
	list := atom.sepBy(str(",").trim(optWhitespace).lookahead(atom))
	g.inlineField = alt(
		seqMap(func(v []any) any { return append([]any{v[0]}, v[2].([]any)...) }, atom, str(",").trim(optWhitespace), list),
		atom,
	)
}

// Query types.
type (
	namedField struct {
		name string
		f    field
	}
	sortField struct {
		f    field
		desc bool
	}
	header struct {
		kind   string // table, list, task, calendar
		fields []namedField
		format field // LIST's expression
		showID bool
	}
	step struct {
		kind   string // where, sort, limit, flatten, group
		f      field
		sorts  []sortField
		named  namedField
		amount field
	}
	query struct {
		header header
		source source
		steps  []step
	}
)

func stripNewlines(s string) string {
	var parts []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		parts = append(parts, strings.TrimSpace(p))
	}
	return strings.Join(parts, "")
}

// captureRaw runs p and keeps the text it read beside its value.
func captureRaw(p *parser) *parser {
	return &parser{fn: func(in string, i int) reply {
		r := p.run(in, i)
		if !r.ok {
			return r
		}
		r.val = [2]any{r.val, in[i:r.idx]}
		return r
	}}
}

func (g *grammar) buildQuery() {
	comma := str(",").trim(optWhitespace)
	comment := &parser{fn: func(in string, i int) reply {
		line := in[i:]
		if !strings.HasPrefix(line, "//") {
			return failure(i, "Not a comment")
		}
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		return success(i+len(line), strings.TrimSpace(line[2:]))
	}}
	wsOrComment := alt(whitespace, comment).many()

	queryType := rx(`(?i:TABLE|LIST|TASK|CALENDAR)`, 0).mapTo(func(v any) any { return strings.ToLower(v.(string)) }).
		desc("query type ('TABLE', 'LIST', 'TASK', or 'CALENDAR')")
	explicitNamed := seqMap(func(v []any) any { return namedField{v[2].(string), v[0]} },
		g.field.skip(whitespace), rx(`(?i:AS)`, 0).skip(whitespace), g.identifier.or(g.str_))
	named := alt(explicitNamed, captureRaw(g.field).mapTo(func(v any) any {
		c := v.([2]any)
		return namedField{stripNewlines(c[1].(string)), c[0]}
	}))
	sortF := seqMap(func(v []any) any {
		dirs := v[1].([]any)
		desc := len(dirs) > 0 && strings.HasPrefix(strings.ToLower(dirs[0].(string)), "desc")
		return sortField{v[0], desc}
	}, g.field.skip(optWhitespace), rx(`(?i:ASCENDING|DESCENDING|ASC|DESC)`, 0).atMost(1))
	withoutID := rx(`(?i:WITHOUT\s+ID)`, 0).skip(optWhitespace).atMost(1)
	ifNotEOF := func(atEOF any, p *parser) *parser {
		return eof.mapTo(func(any) any { return atEOF }).or(whitespace.then(p))
	}
	headerP := queryType.chain(func(v any) *parser {
		switch kind := v.(string); kind {
		case "table":
			return ifNotEOF(header{kind: kind, showID: true}, seqMap(func(v []any) any {
				h := header{kind: kind, showID: len(v[0].([]any)) == 0}
				for _, f := range v[1].([]any) {
					h.fields = append(h.fields, f.(namedField))
				}
				return h
			}, withoutID, named.sepBy(comma)))
		case "list":
			return ifNotEOF(header{kind: kind, showID: true}, seqMap(func(v []any) any {
				h := header{kind: kind, showID: len(v[0].([]any)) == 0}
				if f := v[1].([]any); len(f) == 1 {
					h.format = f[0]
				}
				return h
			}, withoutID, g.field.atMost(1)))
		case "task":
			return succeed(header{kind: kind})
		default:
			return whitespace.then(named.mapTo(func(v any) any {
				return header{kind: kind, showID: true, fields: []namedField{v.(namedField)}}
			}))
		}
	}).desc("TABLE or LIST or TASK or CALENDAR")

	from := seqMap(func(v []any) any { return v[2] }, rx(`(?i:FROM)`, 0), whitespace, g.source)
	where := seqMap(func(v []any) any { return step{kind: "where", f: v[2]} }, rx(`(?i:WHERE)`, 0), whitespace, g.field).desc("WHERE <expression>")
	sortC := seqMap(func(v []any) any {
		s := step{kind: "sort"}
		for _, x := range v[2].([]any) {
			s.sorts = append(s.sorts, x.(sortField))
		}
		return s
	}, rx(`(?i:SORT)`, 0), whitespace, sortF.sepBy1(comma)).desc("SORT field [ASC/DESC]")
	limit := seqMap(func(v []any) any { return step{kind: "limit", amount: v[2]} }, rx(`(?i:LIMIT)`, 0), whitespace, g.field).desc("LIMIT <value>")
	flatten := seqMap(func(v []any) any { return step{kind: "flatten", named: v[1].(namedField)} }, rx(`(?i:FLATTEN)`, 0).skip(whitespace), named).desc("FLATTEN <value> [AS <name>]")
	group := seqMap(func(v []any) any { return step{kind: "group", named: v[1].(namedField)} }, rx(`(?i:GROUP BY)`, 0).skip(whitespace), named).desc("GROUP BY <value> [AS <name>]")
	clause := alt(from.mapTo(func(v any) any { return step{kind: "from", f: v} }), where, sortC, limit, group, flatten)

	g.queryType, g.comment, g.namedField, g.sortField = queryType, comment, named, sortF
	g.query = seqMap(func(v []any) any {
		q := &query{header: v[0].(header), source: folderSource{""}}
		if f := v[1].([]any); len(f) == 1 {
			q.source = f[0]
		}
		for _, c := range v[2].([]any) {
			// A second FROM parses, and fails when run, as in Dataview.
			q.steps = append(q.steps, c.(step))
		}
		return q
	}, headerP.trim(wsOrComment), from.trim(wsOrComment).atMost(1), clause.trim(wsOrComment).many())
}
