package dataview

import (
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/obsidian-mcp/obsidian-mcp/jsregex"
)

// impl is a function of the language.
type impl func(c *Context, args []any) (any, error)

type variant struct {
	types  []string // "*" is any
	vararg bool
	do     impl
}

// builder is Dataview's FunctionBuilder: variants tried in order by the
// types of the arguments, after vectorisation over list arguments.
type builder struct {
	name     string
	variants []variant
	vec      map[int][]int
}

func def(name string) *builder { return &builder{name: name, vec: map[int][]int{}} }

func (b *builder) add(do impl, types ...string) *builder {
	b.variants = append(b.variants, variant{types: types, do: do})
	return b
}

func (b *builder) vararg(do impl) *builder {
	b.variants = append(b.variants, variant{vararg: true, do: do})
	return b
}

func (b *builder) vectorize(n int, positions ...int) *builder {
	b.vec[n] = positions
	return b
}

func (b *builder) build() impl {
	var self impl
	self = func(c *Context, args []any) (any, error) {
		types := make([]string, len(args))
		for i, a := range args {
			types[i] = typeOf(a)
		}
		if pos, ok := b.vec[len(args)]; ok {
			var arrays []int
			for _, p := range pos {
				if p < len(types) && types[p] == "array" {
					arrays = append(arrays, p)
				}
			}
			if len(arrays) > 0 {
				n := math.MaxInt
				for _, p := range arrays {
					n = min(n, len(args[p].([]any)))
				}
				if err := c.meter.Spend(n); err != nil {
					return nil, err
				}
				out := make([]any, 0, n)
				for i := 0; i < n; i++ {
					sub := slices.Clone(args)
					for _, p := range arrays {
						sub[p] = args[p].([]any)[i]
					}
					v, err := self(c, sub)
					if err != nil {
						return nil, err
					}
					out = append(out, v)
				}
				return out, nil
			}
		}
	outer:
		for _, v := range b.variants {
			if v.vararg {
				return v.do(c, args)
			}
			if len(v.types) != len(types) {
				continue
			}
			for i, t := range v.types {
				if t != "*" && t != types[i] {
					continue outer
				}
			}
			return v.do(c, args)
		}
		return nil, failf("No implementation of '%s' found for arguments: %s", b.name, strings.Join(types, ", "))
	}
	return self
}

func ret(v any) impl { return func(*Context, []any) (any, error) { return v, nil } }
func one(f func(a any) any) impl {
	return func(_ *Context, a []any) (any, error) { return f(a[0]), nil }
}
func two(f func(a, b any) any) impl {
	return func(_ *Context, a []any) (any, error) { return f(a[0], a[1]), nil }
}
func three(f func(a, b, c any) any) impl {
	return func(_ *Context, a []any) (any, error) { return f(a[0], a[1], a[2]), nil }
}

func num(v any) float64 { return v.(float64) }
func text(v any) string { return v.(string) }
func list(v any) []any  { return v.([]any) }
func jsInt(f float64) int { // ToIntegerOrInfinity, clamped to int
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if f > math.MaxInt32 {
		return math.MaxInt32
	}
	if f < math.MinInt32 {
		return math.MinInt32
	}
	return int(f)
}

// nullish adds the variants that answer null when an argument is null.
func (b *builder) nullish(arity int, positions ...int) *builder {
	for _, p := range positions {
		types := make([]string, arity)
		for i := range types {
			types[i] = "*"
		}
		types[p] = "null"
		b.add(ret(nil), types...)
	}
	return b
}

var functions map[string]impl

func init() {
	fLink = linkFunction()
	functions = map[string]impl{
		"object":         fObject,
		"list":           fList,
		"array":          fList,
		"date":           fDate,
		"dur":            fDur,
		"number":         fNumber,
		"string":         def("string").add(one(func(a any) any { return toText(a, false) }), "*").build(),
		"link":           nil,
		"embed":          fEmbed,
		"elink":          fElink,
		"typeof":         fTypeof,
		"round":          fRound,
		"trunc":          numeric("trunc", math.Trunc),
		"floor":          numeric("floor", math.Floor),
		"ceil":           numeric("ceil", math.Ceil),
		"min":            nil,
		"max":            nil,
		"sum":            nil,
		"product":        nil,
		"average":        nil,
		"minby":          fMinMaxBy("minby", false),
		"maxby":          fMinMaxBy("maxby", true),
		"contains":       nil,
		"icontains":      nil,
		"econtains":      nil,
		"containsword":   fContainsWord,
		"extract":        nil,
		"sort":           nil,
		"reverse":        fReverse,
		"length":         fLength,
		"nonnull":        fNonnull,
		"firstvalue":     fFirstvalue,
		"all":            fQuantifier("all", func(n, of int) bool { return n == of }),
		"any":            fQuantifier("any", func(n, _ int) bool { return n > 0 }),
		"none":           fQuantifier("all", func(n, _ int) bool { return n == 0 }),
		"join":           nil,
		"filter":         fFilter,
		"map":            fMap,
		"flat":           fFlat,
		"slice":          fSlice,
		"unique":         fUnique,
		"reduce":         nil,
		"regextest":      fRegextest,
		"regexmatch":     fRegexmatch,
		"regexreplace":   fRegexreplace,
		"replace":        fReplace,
		"lower":          textual("lower", strings.ToLower),
		"upper":          textual("upper", strings.ToUpper),
		"split":          fSplit,
		"startswith":     textPredicate("startswith", strings.HasPrefix),
		"endswith":       textPredicate("endswith", strings.HasSuffix),
		"padleft":        fPad("padleft", true),
		"padright":       fPad("padright", false),
		"substring":      fSubstring,
		"truncate":       nil,
		"default":        def("default").add(two(func(v, bk any) any { return defaultOf(v, bk) }), "*", "*").vectorize(2, 0, 1).build(),
		"ldefault":       def("ldefault").add(two(func(v, bk any) any { return defaultOf(v, bk) }), "*", "*").build(),
		"display":        nil,
		"choice":         def("choice").add(three(func(b, l, r any) any { return choose(truthy(b), l, r) }), "*", "*", "*").vectorize(3, 0).build(),
		"striptime":      fStriptime,
		"dateformat":     fDateformat,
		"durationformat": fDurationformat,
		"currencyformat": fCurrencyformat,
		"localtime":      fLocaltime,
		"hash":           fHash,
		"meta":           fMeta,
	}
	// Functions that call themselves or each other are bound once the
	// table exists.
	functions["link"] = fLink
	functions["min"] = fMinMax("min", false)
	functions["max"] = fMinMax("max", true)
	functions["reduce"] = fReduce
	functions["sum"] = def("sum").add(func(c *Context, a []any) (any, error) { return fReduce(c, []any{a[0], "+"}) }, "array").add(one(func(a any) any { return a }), "*").build()
	functions["product"] = def("product").add(func(c *Context, a []any) (any, error) { return fReduce(c, []any{a[0], "*"}) }, "array").add(one(func(a any) any { return a }), "*").build()
	functions["average"] = def("average").add(fAverage, "array").add(one(func(a any) any { return a }), "*").build()
	functions["contains"] = fContains("contains", deepEquals)
	functions["icontains"] = fContains("icontains", deepEqualsFold)
	functions["econtains"] = fContains("econtains", nil)
	functions["extract"] = fExtract
	functions["sort"] = fSort
	functions["join"] = fJoin
	functions["truncate"] = fTruncate
	functions["display"] = fDisplay
}

// FunctionNames lists the functions of the language.
func FunctionNames() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range functions {
			if !yield(k) {
				return
			}
		}
	})
}

func choose(b bool, l, r any) any {
	if b {
		return l
	}
	return r
}

func defaultOf(v, bk any) any {
	if v == nil {
		return bk
	}
	return v
}

func fObject(_ *Context, args []any) (any, error) {
	if len(args)%2 != 0 {
		return nil, failf("object() requires an even number of arguments")
	}
	o := NewObject()
	for i := 0; i < len(args); i += 2 {
		k, ok := args[i].(string)
		if !ok {
			return nil, failf("keys should be of type string for object(key1, value1, ...)")
		}
		o.Set(k, args[i+1])
	}
	return o, nil
}

func fList(_ *Context, args []any) (any, error) { return slices.Clone(args), nil }

var fTypeof = func() impl {
	b := def("type")
	for _, t := range []string{"array", "boolean", "date", "duration", "function", "widget", "link", "null", "number", "object", "string"} {
		b.add(ret(t), t)
	}
	return b.add(ret("unknown"), "*").build()
}()

func (c *Context) normalize(p string) string {
	if c.links == nil {
		return p
	}
	return c.links.Normalize(p)
}

var fLink impl

func linkFunction() impl {
	return def("link").
		add(func(c *Context, a []any) (any, error) { return FileLink(c.normalize(text(a[0]))), nil }, "string").
		add(one(func(a any) any { return a }), "link").
		add(ret(nil), "null").
		vectorize(1, 0).
		add(func(c *Context, a []any) (any, error) {
			l := FileLink(c.normalize(text(a[0])))
			l.Display = text(a[1])
			return l, nil
		}, "string", "string").
		add(func(c *Context, a []any) (any, error) {
			l := FileLink(c.normalize(text(a[0])))
			l.Display, l.Embed = text(a[1]), a[2].(bool)
			return l, nil
		}, "string", "string", "boolean").
		add(two(func(l, d any) any { return l.(*Link).withDisplay(text(d)) }), "link", "string").
		add(ret(nil), "null", "*").
		add(func(c *Context, a []any) (any, error) { return fLink(c, a[:1]) }, "*", "null").
		vectorize(2, 0, 1).
		build()
}

var fEmbed = def("embed").
	add(one(func(l any) any { return l.(*Link).withEmbed(true) }), "link").
	vectorize(1, 0).
	add(two(func(l, e any) any { return l.(*Link).withEmbed(e.(bool)) }), "link", "boolean").
	add(ret(nil), "null").
	add(ret(nil), "null", "*").
	add(ret(nil), "*", "null").
	vectorize(2, 0, 1).
	build()

var fElink = def("elink").
	add(two(func(u, d any) any { return &ExternalLink{URL: text(u), Display: text(d)} }), "string", "string").
	add(one(func(u any) any { return &ExternalLink{URL: text(u), Display: text(u)} }), "string", "null").
	add(ret(nil), "null", "*").
	vectorize(2, 0).
	add(one(func(u any) any { return &ExternalLink{URL: text(u), Display: text(u)} }), "string").
	add(ret(nil), "null").
	vectorize(1, 0).
	build()

var numberRegex = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

var fDate = def("date").
	add(func(c *Context, a []any) (any, error) {
		v, err := parseAll(c.g.datePlus, text(a[0]))
		if err != nil {
			return nil, nil
		}
		return v, nil
	}, "string").
	add(one(func(d any) any { return d }), "date").
	add(func(c *Context, a []any) (any, error) {
		l := a[0].(*Link)
		if l.Display != "" {
			if v, err := parseAll(c.g.date, l.Display); err == nil {
				return v, nil
			}
		}
		if v, err := parseAll(c.g.date, l.Path); err == nil {
			return v, nil
		}
		if c.links != nil {
			if page := c.links.Resolve(l.Path); page != nil {
				if f, ok := page.Get("file"); ok {
					if fo, ok := f.(*Object); ok {
						if d, ok := fo.Get("day"); ok && d != nil {
							return d, nil
						}
					}
				}
			}
		}
		return nil, nil
	}, "link").
	add(func(c *Context, a []any) (any, error) {
		d, f := text(a[0]), text(a[1])
		if f == "x" || f == "X" {
			m := numberRegex.FindString(d)
			if m == "" {
				return nil, failf("Not a number for format( (${ f }): ${ d }")
			}
			n, _ := strconv.ParseInt(strings.SplitN(m, ".", 2)[0], 10, 64)
			if f == "X" {
				n *= 1000
			}
			return time.UnixMilli(n).In(c.g.loc), nil
		}
		t, ok := parseWithFormat(d, f, c.g.loc)
		if !ok {
			return nil, failf("Can't handle format (%s) on date string (%s)", f, d)
		}
		return t, nil
	}, "string", "string").
	add(ret(nil), "null", "string").
	add(ret(nil), "null").
	vectorize(1, 0).
	build()

var fDur = def("dur").
	add(func(c *Context, a []any) (any, error) {
		v, err := parseAll(c.g.duration, strings.TrimSpace(text(a[0])))
		if err != nil {
			return nil, nil
		}
		return v, nil
	}, "string").
	add(one(func(d any) any { return d }), "duration").
	add(ret(nil), "null").
	vectorize(1, 0).
	build()

var fNumber = def("number").
	add(one(func(n any) any { return n }), "number").
	add(one(func(s any) any {
		m := numberRegex.FindString(text(s))
		if m == "" {
			return nil
		}
		f, _ := strconv.ParseFloat(m, 64)
		return f
	}), "string").
	add(ret(nil), "null").
	vectorize(1, 0).
	build()

// jsRound is Math.round: halves go up.
func jsRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return r
}

// toFixed is parseFloat(n.toFixed(p)): the exact binary value rounded
// half away from zero, as JavaScript does.
func toFixed(x float64, p int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1e21 {
		return x
	}
	p = min(p, 100)
	neg := x < 0
	exact := new(big.Float).SetPrec(2048).SetFloat64(math.Abs(x))
	scale := new(big.Float).SetPrec(2048).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil))
	exact.Mul(exact, scale)
	n, _ := exact.Int(nil)
	frac := new(big.Float).SetPrec(2048).Sub(exact, new(big.Float).SetPrec(2048).SetInt(n))
	if frac.Cmp(big.NewFloat(0.5)) >= 0 {
		n.Add(n, big.NewInt(1))
	}
	s := n.String()
	for len(s) <= p {
		s = "0" + s
	}
	if p > 0 {
		s = s[:len(s)-p] + "." + s[len(s)-p:]
	}
	f, _ := strconv.ParseFloat(s, 64)
	if neg {
		f = -f
	}
	return f
}

var fRound = def("round").
	add(one(func(n any) any { return jsRound(num(n)) }), "number").
	add(ret(nil), "null").
	vectorize(1, 0).
	add(two(func(n, p any) any {
		if num(p) <= 0 {
			return jsRound(num(n))
		}
		return toFixed(num(n), jsInt(num(p)))
	}), "number", "number").
	add(one(func(n any) any { return jsRound(num(n)) }), "number", "null").
	add(ret(nil), "null", "*").
	vectorize(2, 0).
	build()

func numeric(name string, f func(float64) float64) impl {
	return def(name).add(one(func(n any) any { return f(num(n)) }), "number").add(ret(nil), "null").vectorize(1, 0).build()
}

func textual(name string, f func(string) string) impl {
	return def(name).add(one(func(s any) any { return f(text(s)) }), "string").add(ret(nil), "null").vectorize(1, 0).build()
}

func textPredicate(name string, f func(s, x string) bool) impl {
	return def(name).add(two(func(s, x any) any { return f(text(s), text(x)) }), "string", "string").
		nullish(2, 0, 1).vectorize(2, 0, 1).build()
}

func fMinMax(name string, isMax bool) impl {
	var self impl
	pick := func(c *Context, a, b any) any {
		cmp := compareValues(a, b, c.normalizer())
		if (!isMax && cmp <= 0) || (isMax && cmp > 0) {
			return a
		}
		return b
	}
	self = def(name).
		add(two(func(a, _ any) any { return a }), "*", "null").
		add(two(func(_, b any) any { return b }), "null", "*").
		add(func(c *Context, a []any) (any, error) { return pick(c, a[0], a[1]), nil }, "*", "*").
		add(func(c *Context, a []any) (any, error) { return self(c, list(a[0])) }, "array").
		vararg(func(c *Context, a []any) (any, error) {
			if len(a) == 0 {
				return nil, nil
			}
			acc := a[0]
			for _, x := range a[1:] {
				v, err := self(c, []any{acc, x})
				if err != nil {
					return nil, err
				}
				acc = v
			}
			return acc, nil
		}).build()
	return self
}

func fMinMaxBy(name string, isMax bool) impl {
	return def(name).add(func(c *Context, a []any) (any, error) {
		arr, f := list(a[0]), a[1].(*Lambda)
		if len(arr) == 0 {
			return nil, nil
		}
		type kv struct{ value, mapped any }
		var kept []kv
		for _, v := range arr {
			m, err := c.callLambda(f, []any{v})
			if err != nil {
				return nil, err
			}
			if m != nil {
				kept = append(kept, kv{v, m})
			}
		}
		if len(kept) == 0 {
			return arr[0], nil
		}
		best := kept[0]
		for _, x := range kept[1:] {
			cmp := compareValues(best.mapped, x.mapped, c.normalizer())
			if (isMax && cmp <= 0) || (!isMax && cmp > 0) {
				best = x
			}
		}
		return best.value, nil
	}, "array", "function").add(ret(nil), "null", "function").build()
}

var fStriptime = def("striptime").
	add(func(c *Context, a []any) (any, error) {
		d := a[0].(time.Time)
		return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, c.g.loc), nil
	}, "date").
	add(ret(nil), "null").
	vectorize(1, 0).
	build()

func deepEquals(c *Context, a, b any) (bool, error) {
	v, err := c.binary("=", a, b)
	return v == true, err
}

func deepEqualsFold(c *Context, a, b any) (bool, error) { return deepEquals(c, a, b) }

// fContains is contains (recursive), icontains (recursive, ignoring
// case) and econtains (exact: eq is nil).
func fContains(name string, eq func(c *Context, a, b any) (bool, error)) impl {
	var self impl
	fold := name == "icontains"
	self = def(name).
		add(func(c *Context, a []any) (any, error) {
			l := list(a[0])
			if err := c.meter.Spend(len(l)); err != nil {
				return nil, err
			}
			for _, e := range l {
				var hit bool
				if eq == nil {
					v, err := c.binary("=", a[1], e)
					if err != nil {
						return nil, err
					}
					hit = v == true
				} else {
					v, err := self(c, []any{e, a[1]})
					if err != nil {
						return nil, err
					}
					hit = truthy(v)
				}
				if hit {
					return true, nil
				}
			}
			return false, nil
		}, "array", "*").
		add(two(func(h, n any) any {
			if fold {
				return strings.Contains(strings.ToLower(text(h)), strings.ToLower(text(n)))
			}
			return strings.Contains(text(h), text(n))
		}), "string", "string").
		add(two(func(o, k any) any { return o.(*Object).Has(text(k)) }), "object", "string").
		add(func(c *Context, a []any) (any, error) { return c.binary("=", a[0], a[1]) }, "*", "*").
		vectorize(2, 1).
		build()
	return self
}

var fContainsWord = def("containsword").
	add(two(func(h, n any) any {
		re := regexp.MustCompile(`(?i)\b` + escapeRegex(text(n)) + `\b`)
		return re.MatchString(text(h))
	}), "string", "string").
	nullish(2, 0, 1).
	vectorize(2, 0, 1).
	build()

func fExtract(c *Context, args []any) (any, error) {
	if len(args) == 0 {
		return "extract(object, key1, ...) requires at least 1 argument", nil
	}
	if arr, ok := args[0].([]any); ok {
		out := make([]any, 0, len(arr))
		for _, v := range arr {
			x, err := fExtract(c, append([]any{v}, args[1:]...))
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	o := NewObject()
	for _, k := range args[1:] {
		key, ok := k.(string)
		if !ok {
			return nil, failf("extract(object, key1, ...) must be called with string keys")
		}
		v, err := c.index(args[0], key)
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
	}
	return o, nil
}

var fReverse = def("reverse").
	add(one(func(l any) any {
		x := slices.Clone(list(l))
		slices.Reverse(x)
		return x
	}), "array").
	add(one(func(s any) any {
		u := utf16.Encode([]rune(text(s)))
		slices.Reverse(u)
		return string(utf16.Decode(u))
	}), "string").
	add(one(func(a any) any { return a }), "*").
	build()

// jsSort is Array.prototype.sort with cmp: stable, ties keeping their
// places (SORT, GROUP BY and sort() sort with it). Not SortStableFunc:
// its merges compare O(n log² n) times, and a comparison may collate
// text (3,000 rows: 17 ms of a 60 ms query).
func jsSort[T any](xs []T, cmp func(a, b T) int) {
	type placed struct {
		x  T
		at int
	}
	ps := make([]placed, len(xs))
	for i, x := range xs {
		ps[i] = placed{x, i}
	}
	slices.SortFunc(ps, func(a, b placed) int {
		if c := cmp(a.x, b.x); c != 0 {
			return c
		}
		return a.at - b.at
	})
	for i, p := range ps {
		xs[i] = p.x
	}
}

func fSort(c *Context, args []any) (any, error) {
	return def("sort").
		add(func(c *Context, a []any) (any, error) { return sortBy(c, list(a[0]), nil) }, "array").
		add(func(c *Context, a []any) (any, error) { return sortBy(c, list(a[0]), a[1].(*Lambda)) }, "array", "function").
		add(one(func(a any) any { return a }), "*").
		build()(c, args)
}

func sortBy(c *Context, l []any, key *Lambda) (any, error) {
	type kv struct{ v, k any }
	items := make([]kv, len(l))
	for i, v := range l {
		k := v
		if key != nil {
			var err error
			if k, err = c.callLambda(key, []any{v}); err != nil {
				return nil, err
			}
		}
		items[i] = kv{v, k}
	}
	if err := c.meter.Spend(len(l) * 8); err != nil {
		return nil, err
	}
	norm := c.normalizer()
	jsSort(items, func(a, b kv) int {
		cmp := compareValues(a.k, b.k, norm)
		switch {
		case cmp < 0:
			return -1
		case cmp == 0:
			return 0
		}
		return 1
	})
	out := make([]any, len(items))
	for i, x := range items {
		out[i] = x.v
	}
	return out, nil
}

var fLength = def("length").
	add(one(func(a any) any { return float64(len(list(a))) }), "array").
	add(one(func(a any) any { return float64(a.(*Object).Len()) }), "object").
	add(one(func(a any) any { return float64(utf16Len(text(a))) }), "string").
	add(ret(0.0), "null").
	build()

func nonNull(xs []any) []any {
	out := []any{}
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

var fNonnull = def("nonnull").
	add(one(func(a any) any { return nonNull(list(a)) }), "array").
	vararg(func(_ *Context, a []any) (any, error) { return nonNull(a), nil }).
	build()

var fFirstvalue = def("firstvalue").
	add(one(func(a any) any {
		if n := nonNull(list(a)); len(n) > 0 {
			return n[0]
		}
		return nil
	}), "array").
	add(ret(nil), "null").
	build()

func fQuantifier(name string, holds func(n, of int) bool) impl {
	count := func(xs []any) int {
		n := 0
		for _, x := range xs {
			if truthy(x) {
				n++
			}
		}
		return n
	}
	return def(name).
		add(one(func(a any) any { return holds(count(list(a)), len(list(a))) }), "array").
		add(func(c *Context, a []any) (any, error) {
			arr := list(a[0])
			mapped := make([]any, 0, len(arr))
			for _, v := range arr {
				x, err := c.callLambda(a[1].(*Lambda), []any{v})
				if err != nil {
					return nil, err
				}
				mapped = append(mapped, x)
			}
			return holds(count(mapped), len(mapped)), nil
		}, "array", "function").
		vararg(func(_ *Context, a []any) (any, error) { return holds(count(a), len(a)), nil }).
		build()
}

func fJoin(c *Context, args []any) (any, error) {
	joinList := func(arr []any, sep string) any {
		parts := make([]string, len(arr))
		for i, e := range arr {
			parts[i] = toText(e, false)
		}
		return strings.Join(parts, sep)
	}
	return def("join").
		add(two(func(a, s any) any { return joinList(list(a), text(s)) }), "array", "string").
		add(one(func(a any) any { return joinList(list(a), ", ") }), "array", "null").
		add(one(func(e any) any { return toText(e, false) }), "*", "string").
		add(one(func(a any) any { return joinList(list(a), ", ") }), "array").
		add(one(func(e any) any { return toText(e, false) }), "*").
		vectorize(2, 1).
		build()(c, args)
}

func mapList(c *Context, arr []any, f *Lambda) ([]any, error) {
	out := make([]any, 0, len(arr))
	for _, v := range arr {
		x, err := c.callLambda(f, []any{v})
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

var fFilter = def("filter").
	add(func(c *Context, a []any) (any, error) {
		arr := list(a[0])
		out := []any{}
		for _, v := range arr {
			x, err := c.callLambda(a[1].(*Lambda), []any{v})
			if err != nil {
				return nil, err
			}
			if truthy(x) {
				out = append(out, v)
			}
		}
		return out, nil
	}, "array", "function").
	add(ret(nil), "null", "*").
	build()

var fMap = def("map").
	add(func(c *Context, a []any) (any, error) { return mapList(c, list(a[0]), a[1].(*Lambda)) }, "array", "function").
	add(ret(nil), "null", "*").
	build()

func flatten(xs []any, depth int) []any {
	out := []any{}
	for _, x := range xs {
		if l, ok := x.([]any); ok && depth > 0 {
			out = append(out, flatten(l, depth-1)...)
		} else {
			out = append(out, x)
		}
	}
	return out
}

var fFlat = def("flat").
	add(one(func(a any) any { return flatten(list(a), 1) }), "array").
	add(two(func(a, n any) any { return flatten(list(a), min(jsInt(num(n)), 1000)) }), "array", "number").
	add(ret(nil), "null").
	build()

// jsSlice is Array.prototype.slice's index rules.
func jsSlice(n int, start, end float64) (int, int) {
	rel := func(f float64) int {
		i := jsInt(f)
		if math.IsInf(f, -1) || i < 0 {
			return max(n+i, 0)
		}
		return min(i, n)
	}
	s, e := rel(start), rel(end)
	if math.IsInf(end, 1) {
		e = n
	}
	if e < s {
		e = s
	}
	return s, e
}

var fSlice = def("slice").
	add(one(func(a any) any { return slices.Clone(list(a)) }), "array").
	add(two(func(a, s any) any {
		l := list(a)
		i, j := jsSlice(len(l), num(s), math.Inf(1))
		return slices.Clone(l[i:j])
	}), "array", "number").
	add(three(func(a, s, e any) any {
		l := list(a)
		i, j := jsSlice(len(l), num(s), num(e))
		return slices.Clone(l[i:j])
	}), "array", "number", "number").
	add(ret(nil), "null").
	build()

// fUnique is DataArray.distinct: sorted, then the first of each run.
var fUnique = def("unique").
	add(func(c *Context, a []any) (any, error) {
		arr := slices.Clone(list(a[0]))
		if len(arr) == 0 {
			return arr, nil
		}
		if err := c.meter.Spend(len(arr) * 8); err != nil {
			return nil, err
		}
		jsSort(arr, func(x, y any) int { return compareValues(x, y, nil) })
		out := []any{arr[0]}
		for i := 1; i < len(arr); i++ {
			if compareValues(arr[i-1], arr[i], nil) != 0 {
				out = append(out, arr[i])
			}
		}
		return out, nil
	}, "array").
	add(ret(nil), "null").
	build()

func fReduce(c *Context, args []any) (any, error) {
	return def("reduce").
		add(func(c *Context, a []any) (any, error) {
			l, op := list(a[0]), text(a[1])
			if len(l) == 0 {
				return nil, nil
			}
			switch op {
			case "+", "-", "*", "/", "&", "|":
			default:
				return nil, failf("reduce(array, op) supports '+', '-', '/', '*', '&', and '|'")
			}
			v := l[0]
			for _, x := range l[1:] {
				var err error
				if v, err = c.binary(op, v, x); err != nil {
					return nil, err
				}
			}
			return v, nil
		}, "array", "string").
		add(func(c *Context, a []any) (any, error) {
			l, f := list(a[0]), a[1].(*Lambda)
			if len(l) == 0 {
				return nil, nil
			}
			v := l[0]
			for _, x := range l[1:] {
				if x == nil {
					continue
				}
				var err error
				if v, err = c.callLambda(f, []any{v, x}); err != nil {
					return nil, err
				}
			}
			return v, nil
		}, "array", "function").
		add(ret(nil), "null", "*").
		add(ret(nil), "*", "null").
		vectorize(2, 1).
		build()(c, args)
}

func fAverage(c *Context, a []any) (any, error) {
	arr := list(a[0])
	if len(arr) == 0 {
		return nil, nil
	}
	sum, err := fReduce(c, []any{arr, "+"})
	if err != nil || sum == nil {
		return nil, err
	}
	return c.binary("/", sum, float64(len(arr)))
}

// compileJS compiles a user's pattern, naming the function on failure.
func compileJS(fn, pattern, flags string) (*regexp.Regexp, error) {
	re, err := jsregex.Compile(pattern, flags)
	if err != nil {
		return nil, failf("%s: %v", fn, err)
	}
	return re, nil
}

// regexPredicate is regextest (a match anywhere) and regexmatch (the
// whole text, unless the pattern anchors itself).
func regexPredicate(name string, whole bool) impl {
	return def(name).
		add(func(_ *Context, a []any) (any, error) {
			p := text(a[0])
			if whole && !strings.HasPrefix(p, "^") && !strings.HasSuffix(p, "$") {
				p = "^" + p + "$"
			}
			re, err := compileJS(name, p, "")
			if err != nil {
				return nil, err
			}
			return re.MatchString(text(a[1])), nil
		}, "string", "string").
		add(ret(false), "null", "*").
		add(ret(false), "*", "null").
		vectorize(2, 0, 1).
		build()
}

var (
	fRegextest  = regexPredicate("regextest", false)
	fRegexmatch = regexPredicate("regexmatch", true)
)

var fRegexreplace = def("regexreplace").
	add(func(_ *Context, a []any) (any, error) {
		re, err := jsregex.Compile(text(a[1]), "g")
		if err != nil {
			if _, js := err.(*jsregex.Unsupported); js {
				return nil, failf("regexreplace: %v", err)
			}
			return nil, failf("Invalid regexp '%s' in regexreplace", text(a[1]))
		}
		return re.ReplaceAllString(text(a[0]), jsregex.Template(text(a[2]))), nil
	}, "string", "string", "string").
	nullish(3, 0, 1, 2).
	vectorize(3, 0, 1, 2).
	build()

var fReplace = def("replace").
	add(three(func(s, p, r any) any {
		if text(p) == "" {
			// "abc".split("") is its UTF-16 units.
			u := utf16.Encode([]rune(text(s)))
			parts := make([]string, len(u))
			for i := range u {
				parts[i] = string(utf16.Decode(u[i : i+1]))
			}
			return strings.Join(parts, text(r))
		}
		return strings.ReplaceAll(text(s), text(p), text(r))
	}), "string", "string", "string").
	nullish(3, 0, 1, 2).
	vectorize(3, 0, 1, 2).
	build()

// jsSplit is str.split(new RegExp(delim), limit): captured groups go in
// between, undefined ones as "".
func jsSplit(s string, re *regexp.Regexp, limit int) []any {
	out := []any{}
	if limit == 0 {
		return out
	}
	add := func(x string) bool {
		out = append(out, x)
		return limit > 0 && len(out) >= limit
	}
	if s == "" {
		if re.MatchString("") {
			return out
		}
		add("")
		return out
	}
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		if m[1] == m[0] && (m[0] == 0 || m[0] >= len(s)) {
			continue // JavaScript never splits at the ends on an empty match
		}
		if m[0] == last && m[1] == m[0] {
			continue
		}
		if add(s[last:m[0]]) {
			return out
		}
		for g := 1; g*2 < len(m); g++ {
			v := ""
			if m[2*g] >= 0 {
				v = s[m[2*g]:m[2*g+1]]
			}
			if add(v) {
				return out
			}
		}
		last = m[1]
	}
	add(s[last:])
	return out
}

var fSplit = def("split").
	add(func(_ *Context, a []any) (any, error) {
		re, err := compileJS("split", text(a[1]), "")
		if err != nil {
			return nil, err
		}
		return jsSplit(text(a[0]), re, -1), nil
	}, "string", "string").
	add(func(_ *Context, a []any) (any, error) {
		re, err := compileJS("split", text(a[1]), "")
		if err != nil {
			return nil, err
		}
		return jsSplit(text(a[0]), re, max(jsInt(num(a[2])), 0)), nil
	}, "string", "string", "number").
	nullish(2, 0, 1).
	add(ret(nil), "*", "*", "null").
	add(ret(nil), "*", "null", "*").
	add(ret(nil), "null", "*", "*").
	build()

// jsPad is padStart/padEnd on UTF-16 units.
func jsPad(s string, n int, fill string, left bool) string {
	have := utf16Len(s)
	if n <= have || fill == "" {
		return s
	}
	n = min(n, maxText)
	need := n - have
	f := utf16.Encode([]rune(fill))
	pad := make([]uint16, 0, need)
	for len(pad) < need {
		pad = append(pad, f[:min(len(f), need-len(pad))]...)
	}
	p := string(utf16.Decode(pad))
	if left {
		return p + s
	}
	return s + p
}

func fPad(name string, left bool) impl {
	return def(name).
		add(two(func(s, n any) any { return jsPad(text(s), jsInt(num(n)), " ", left) }), "string", "number").
		add(three(func(s, n, p any) any { return jsPad(text(s), jsInt(num(n)), text(p), left) }), "string", "number", "string").
		nullish(2, 0, 1).
		nullish(3, 0, 1, 2).
		vectorize(2, 0, 1).
		vectorize(3, 0, 1, 2).
		build()
}

var fSubstring = def("substring").
	add(two(func(s, a any) any { return jsSubstring(text(s), jsInt(num(a)), math.MaxInt32) }), "string", "number").
	add(three(func(s, a, b any) any { return jsSubstring(text(s), jsInt(num(a)), jsInt(num(b))) }), "string", "number", "number").
	nullish(2, 0, 1).
	nullish(3, 0, 1, 2).
	vectorize(2, 0, 1).
	vectorize(3, 0, 1, 2).
	build()

func fTruncate(c *Context, args []any) (any, error) {
	trunc := func(s string, n int, suffix string) string {
		if utf16Len(s) > n-utf16Len(suffix) {
			return jsSubstring(s, 0, max(0, n-utf16Len(suffix))) + suffix
		}
		return s
	}
	return def("truncate").
		add(three(func(s, n, x any) any { return trunc(text(s), jsInt(num(n)), text(x)) }), "string", "number", "string").
		add(two(func(s, n any) any { return trunc(text(s), jsInt(num(n)), "...") }), "string", "number").
		nullish(2, 0, 1).
		nullish(3, 0, 1, 2).
		vectorize(2, 0, 1).
		vectorize(3, 0, 1, 2).
		build()(c, args)
}

var linkDisplayed = regexp.MustCompile(`\[\[.*\|(.*)\]\]`)

func fDisplay(c *Context, args []any) (any, error) {
	return def("display").
		add(ret(""), "null").
		add(func(c *Context, a []any) (any, error) {
			parts := make([]string, 0, len(list(a[0])))
			for _, e := range list(a[0]) {
				v, err := fDisplay(c, []any{e})
				if err != nil {
					return nil, err
				}
				parts = append(parts, v.(string))
			}
			return strings.Join(parts, ", "), nil
		}, "array").
		add(one(func(s any) any { return normalizeMarkdown(text(s)) }), "string").
		add(func(c *Context, a []any) (any, error) {
			l := a[0].(*Link)
			if l.Display != "" {
				return fDisplay(c, []any{l.Display})
			}
			s := toText(l, false)
			if m := linkDisplayed.FindStringSubmatchIndex(s); m != nil {
				s = s[:m[0]] + s[m[2]:m[3]] + s[m[1]:]
			}
			return s, nil
		}, "link").
		add(one(func(a any) any { return toText(a, false) }), "*").
		build()(c, args)
}

var fDateformat = def("dateformat").
	add(two(func(d, f any) any { return formatDate(d.(time.Time), text(f)) }), "date", "string").
	add(ret(nil), "null", "string").
	vectorize(2, 0).
	build()

var fDurationformat = def("durationformat").
	add(two(func(d, f any) any { return formatDuration(d.(Duration), text(f)) }), "duration", "string").
	add(ret(nil), "null", "string").
	vectorize(2, 0).
	build()

var fLocaltime = def("localtime").
	add(func(c *Context, a []any) (any, error) { return a[0].(time.Time).In(c.g.loc), nil }, "date").
	add(ret(nil), "null").
	vectorize(1, 0).
	build()

// currency is Intl.NumberFormat's currency style in en-US for the
// currencies it writes with a symbol; others are written with their code.
func currency(n float64, code string) string {
	symbols := map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CNY": "CN¥", "CAD": "CA$", "AUD": "A$", "KRW": "₩", "BRL": "R$", "MXN": "MX$"}
	digits := 2
	if code == "JPY" || code == "KRW" {
		digits = 0
	}
	neg := n < 0
	s := strconv.FormatFloat(toFixed(math.Abs(n), digits), 'f', digits, 64)
	s = groupThousands(s)
	sym, ok := symbols[strings.ToUpper(code)]
	if !ok {
		sym = strings.ToUpper(code) + "\u00a0"
	}
	if neg {
		return "-" + sym + s
	}
	return sym + s
}

var fCurrencyformat = def("currencyformat").
	add(func(_ *Context, a []any) (any, error) {
		code := text(a[1])
		if len(code) != 3 {
			return nil, failf("Invalid currency code : %s", code)
		}
		return currency(num(a[0]), code), nil
	}, "number", "string").
	add(ret(nil), "null", "string").
	add(one(func(n any) any { return currency(num(n), "USD") }), "number").
	add(ret(nil), "null").
	vectorize(2, 0).
	build()

// cyrb53 is the hash Dataview's hash() uses, on UTF-16 code units.
func cyrb53(s string, seed float64) float64 {
	h1 := uint32(0xdeadbeef) ^ uint32(int64(seed))
	h2 := uint32(0x41c6ce57) ^ uint32(int64(seed))
	for _, ch := range utf16.Encode([]rune(s)) {
		h1 = (h1 ^ uint32(ch)) * 2654435761
		h2 = (h2 ^ uint32(ch)) * 1597334677
	}
	h1 = (h1 ^ (h1 >> 16)) * 2246822507
	h1 ^= (h2 ^ (h2 >> 13)) * 3266489909
	h2 = (h2 ^ (h2 >> 16)) * 2246822507
	h2 ^= (h1 ^ (h1 >> 13)) * 3266489909
	return 4294967296*float64(2097151&h2) + float64(h1)
}

var fHash = def("hash").
	add(two(func(s, v any) any { return cyrb53(text(s), num(v)) }), "string", "number").
	add(two(func(s, t any) any { return cyrb53(text(s)+text(t), 0) }), "string", "string").
	add(three(func(s, t, v any) any { return cyrb53(text(s)+text(t), num(v)) }), "string", "string", "number").
	build()

var fMeta = def("meta").
	add(one(func(a any) any {
		l := a.(*Link)
		o := NewObject()
		o.Set("display", nilIfEmpty(l.Display))
		o.Set("embed", l.Embed)
		o.Set("path", l.Path)
		o.Set("subpath", nilIfEmpty(l.Subpath))
		o.Set("type", l.Type)
		return o
	}), "link").
	build()

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// dateReader reads a date by a luxon format, as DateTime.fromFormat.
type dateReader struct {
	s                 string
	i                 int
	y, mo, d          int
	h, mi, sec, ms    int
	pm, meridiem, h12 bool
}

func (r *dateReader) num(minW, maxW int) (int, bool) {
	j := r.i
	for j < len(r.s) && j-r.i < maxW && r.s[j] >= '0' && r.s[j] <= '9' {
		j++
	}
	if j-r.i < minW {
		return 0, false
	}
	n, _ := strconv.Atoi(r.s[r.i:j])
	r.i = j
	return n, true
}

func (r *dateReader) into(dst *int, minW, maxW int) bool {
	n, ok := r.num(minW, maxW)
	*dst = n
	return ok
}

func (r *dateReader) monthName(short bool) bool {
	for n, name := range monthsLong {
		if short {
			name = name[:3]
		}
		if len(r.s)-r.i >= len(name) && strings.EqualFold(r.s[r.i:r.i+len(name)], name) {
			r.mo, r.i = n+1, r.i+len(name)
			return true
		}
	}
	return false
}

func (r *dateReader) ampm() bool {
	if len(r.s)-r.i < 2 {
		return false
	}
	switch strings.ToUpper(r.s[r.i : r.i+2]) {
	case "AM":
	case "PM":
		r.pm = true
	default:
		return false
	}
	r.meridiem = true
	r.i += 2
	return true
}

var dateReaders = map[string]func(r *dateReader) bool{
	"yyyy": func(r *dateReader) bool { return r.into(&r.y, 4, 4) },
	"y":    func(r *dateReader) bool { return r.into(&r.y, 1, 6) },
	"yy": func(r *dateReader) bool {
		ok := r.into(&r.y, 2, 2)
		r.y += 2000
		if r.y > 2060 {
			r.y -= 100
		}
		return ok
	},
	"MM": func(r *dateReader) bool { return r.into(&r.mo, 2, 2) }, "LL": func(r *dateReader) bool { return r.into(&r.mo, 2, 2) },
	"M": func(r *dateReader) bool { return r.into(&r.mo, 1, 2) }, "L": func(r *dateReader) bool { return r.into(&r.mo, 1, 2) },
	"MMMM": func(r *dateReader) bool { return r.monthName(false) }, "LLLL": func(r *dateReader) bool { return r.monthName(false) },
	"MMM": func(r *dateReader) bool { return r.monthName(true) }, "LLL": func(r *dateReader) bool { return r.monthName(true) },
	"dd":  func(r *dateReader) bool { return r.into(&r.d, 2, 2) },
	"d":   func(r *dateReader) bool { return r.into(&r.d, 1, 2) },
	"HH":  func(r *dateReader) bool { return r.into(&r.h, 2, 2) },
	"H":   func(r *dateReader) bool { return r.into(&r.h, 1, 2) },
	"hh":  func(r *dateReader) bool { r.h12 = true; return r.into(&r.h, 2, 2) },
	"h":   func(r *dateReader) bool { r.h12 = true; return r.into(&r.h, 1, 2) },
	"mm":  func(r *dateReader) bool { return r.into(&r.mi, 2, 2) },
	"m":   func(r *dateReader) bool { return r.into(&r.mi, 1, 2) },
	"ss":  func(r *dateReader) bool { return r.into(&r.sec, 2, 2) },
	"s":   func(r *dateReader) bool { return r.into(&r.sec, 1, 2) },
	"SSS": func(r *dateReader) bool { return r.into(&r.ms, 3, 3) },
	"S":   func(r *dateReader) bool { return r.into(&r.ms, 1, 3) },
	"a":   func(r *dateReader) bool { return r.ampm() },
}

// literal reads text of the format that is not a token.
func (r *dateReader) literal(tok string) bool {
	if strings.IndexFunc(tok, func(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }) >= 0 {
		return false // a token this reader does not know
	}
	if !strings.HasPrefix(r.s[r.i:], tok) {
		return false
	}
	r.i += len(tok)
	return true
}

// parseWithFormat is luxon's DateTime.fromFormat for the tokens people
// write: years, months (numbers and names), days, hours, minutes,
// seconds, milliseconds, AM/PM, and quoted text.
func parseWithFormat(s, f string, loc *time.Location) (time.Time, bool) {
	r := &dateReader{s: s, y: 1970, mo: 1, d: 1}
	rs := []rune(f)
	for k := 0; k < len(rs); {
		j := k + 1
		var ok bool
		if rs[k] == '\'' {
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			ok = strings.HasPrefix(s[r.i:], string(rs[k+1:min(j, len(rs))]))
			r.i += len(string(rs[k+1 : min(j, len(rs))]))
			j++
		} else {
			for j < len(rs) && rs[j] == rs[k] {
				j++
			}
			tok := string(rs[k:j])
			if read, known := dateReaders[tok]; known {
				ok = read(r)
			} else {
				ok = r.literal(tok)
			}
		}
		if !ok || r.i > len(s) {
			return time.Time{}, false
		}
		k = j
	}
	if r.i != len(s) {
		return time.Time{}, false
	}
	if r.h12 || r.meridiem {
		if r.h > 12 || (r.h < 1 && r.h12) {
			return time.Time{}, false
		}
		r.h %= 12
		if r.pm {
			r.h += 12
		}
	}
	return dateFromParts(loc, r.y, r.mo, r.d, r.h, r.mi, r.sec, r.ms)
}

// normalizeMarkdown is display()'s plain text: links to their text,
// emphasis, code and heading marks gone (remove-markdown's main rules).
func normalizeMarkdown(s string) string {
	s = regexp.MustCompile(`\[\[([^|]*?)\]\]`).ReplaceAllString(s, "$1")
	if m := regexp.MustCompile(`\[\[.*?\|(.*?)\]\]`).FindStringSubmatchIndex(s); m != nil {
		s = s[:m[0]] + s[m[2]:m[3]] + s[m[1]:]
	}
	for _, r := range []struct{ re, with string }{
		{`(?m)^([\s\t]*)([*\-+]|\d+\.)\s+`, "$1"},
		{`(?m)^\s*#{1,6}\s*`, ""},
		{`!\[(.*?)\][\[(].*?[\])]`, "$1"},
		{`\[(.*?)\][\[(].*?[\])]`, "$1"},
		{`(\*\*|__)(.*?)(\*\*|__)`, "$2"},
		{`(\*|_)(.*?)(\*|_)`, "$2"},
		{"`{3}.*\n?", ""},
		{"`(.+?)`", "$1"},
		{`~~(.*?)~~`, "$1"},
		{`<[^>]*>`, ""},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}
