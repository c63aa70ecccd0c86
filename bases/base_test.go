package bases

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
)

const books = `filters:
  or:
    - file.hasTag("book")
    - and:
        - file.inFolder("Reading")
        - file.hasLink("Textbook")
    - not:
        - file.inFolder("Reading")
        - file.hasTag("book")
formulas:
  formatted_price: 'if(price, price.toFixed(2) + " dollars")'
  ppu: "(price / age).toFixed(2)"
  recent: 'file.mtime > now() - "1 week"'
  overdue: 'due && date(due) < today()'
views:
  - type: table
    name: Shelf
    limit: 3
    filters:
      and:
        - 'status != "done"'
        - or:
            - "formula.ppu > 5"
            - "price > 2.1"
    order:
      - file.name
      - note.age
      - formula.ppu
      - formula.formatted_price
      - formula.overdue
    sort:
      - property: formula.ppu
        direction: DESC
  - type: cards
    name: By status
    groupBy:
      property: status
      direction: ASC
    order: [file.basename, formula.recent, tags]
`

func props(kv ...any) []metadata.Property {
	var out []metadata.Property
	for i := 0; i < len(kv); i += 2 {
		out = append(out, metadata.Property{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

var now = time.Date(2026, 11, 26, 9, 0, 0, 0, time.Local)

var shelf = []File{
	{Path: "Books/Dune.md", Tags: []string{"book"}, Mtime: now.Add(-48 * time.Hour), Props: props("price", 30.0, "age", 3.0, "status", "reading", "due", "2026-11-20", "tags", []any{"book"})},
	{Path: "Books/Emma.md", Tags: []string{"book/classic"}, Mtime: now.Add(-30 * 24 * time.Hour), Props: props("price", 2.0, "age", 10.0, "status", "todo")},
	{Path: "Books/Done.md", Tags: []string{"book"}, Props: props("price", 99.0, "age", 1.0, "status", "done")},
	{Path: "Reading/Calc.md", Links: []string{"Refs/Textbook.md"}, Props: props("price", 12.5, "age", 1.0, "status", "todo", "due", "2026-12-24")},
	{Path: "Reading/Other.md", Props: props("price", 50.0, "age", 1.0)},
	{Path: "Inbox/Loose.md", Props: props("price", 3.0, "age", 3.0, "status", "reading")},
	{Path: "Assets/cover.png", Size: 100},
}

func TestQuery(t *testing.T) {
	b, err := Parse([]byte(books))
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Query(t.Context(), "", shelf, now)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res)
	want := `{"path":"","view":"Shelf","columns":["file.name","note.age","formula.ppu","formula.formatted_price","formula.overdue"],"total":3,"rows":[` +
		`{"path":"Reading/Calc.md","values":{"file.name":"Calc.md","formula.formatted_price":"12.50 dollars","formula.overdue":false,"formula.ppu":"12.50","note.age":1}},` +
		`{"path":"Books/Dune.md","values":{"file.name":"Dune.md","formula.formatted_price":"30.00 dollars","formula.overdue":true,"formula.ppu":"10.00","note.age":3}},` +
		`{"path":"Inbox/Loose.md","values":{"file.name":"Loose.md","formula.formatted_price":"3.00 dollars","formula.overdue":false,"formula.ppu":"1.00","note.age":3}}]}`
	if string(got) != want {
		t.Errorf("Shelf:\n got %s\nwant %s", got, want)
	}
	res, err = b.Query(t.Context(), "By status", shelf, now)
	if err != nil {
		t.Fatal(err)
	}
	var paths, groups []string
	for _, r := range res.Rows {
		paths = append(paths, r.Path)
		groups = append(groups, toString(r.Group))
	}
	// Every file the base's filters select, grouped by status (empty last).
	if strings.Join(paths, " ") != "Books/Done.md Books/Dune.md Inbox/Loose.md Books/Emma.md Reading/Calc.md Assets/cover.png" ||
		strings.Join(groups, ",") != "done,reading,reading,todo,todo," {
		t.Errorf("By status: %v %v", paths, groups)
	}
	if v := res.Rows[1].Values; v["formula.recent"] != true || v["file.basename"] != "Dune" || toString(v["tags"]) != "book" {
		t.Errorf("Dune's values %v", v)
	}
	if _, err := b.Query(t.Context(), "Nope", shelf, now); err == nil || !strings.Contains(err.Error(), `no view "Nope" (views: Shelf, By status)`) {
		t.Errorf("unknown view: %v", err)
	}
}

func TestExpressions(t *testing.T) {
	f := &File{Path: "A/B.md", Tags: []string{"x/y"}, Props: props("n", 4.0, "s", "Hello World", "l", []any{"a", "b", "a"}, "d", "2026-01-31", "my prop", "v")}
	cases := map[string]string{
		`n * 2 + 1 == 9`: "true",
		`!(n > 3) || s.lower().contains("world")`:  "true",
		`s.startsWith("Hell") && s.endsWith("ld")`: "true",
		`s.length`:                                "11",
		`l.unique().join("-")`:                    "a-b",
		`l.contains("b") && l.length == 3`:        "true",
		`date(d) + "1 month"`:                     "2026-03-03",
		`date(d).format("DD/MM/YYYY")`:            "31/01/2026",
		`note["my prop"]`:                         "v",
		`file.hasTag("x") && file.hasTag("#X/Y")`: "true",
		`file.folder + "|" + file.ext`:            "A|md",
		`if(missing, "yes", "no")`:                "no",
		`max(1, n, 3)`:                            "4",
		`(10 % 4).toFixed(1)`:                     "2.0",
		`[1, 2].length`:                           "2",
		`s.split(" ")[1]`:                         "World",
		`n / 0`:                                   "",
		`-n`:                                      "-4",
		`s === "Hello World"`:                     "true",
		`"10.00" > 5 && "10" < "5"`:               "true",
	}
	for src, want := range cases {
		n, err := parse(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		e := &env{f: f, now: now, done: map[string]any{}, busy: map[string]bool{}}
		v, err := e.eval(n)
		if err != nil || toString(v) != want {
			t.Errorf("%s = %v (%v), want %s", src, toString(v), err, want)
		}
	}
	for src, want := range map[string]string{
		`frobnicate(1)`:     "frobnicate() is not supported natively",
		`file.hasTags("x")`: "file.hasTags() is not supported",
		`l.filter(value)`:   "the method .filter() of a list is not supported",
		`this.file`:         "`this`",
		`file.embeds`:       "file.embeds is not supported",
		`formula.nope`:      "formula.nope is not defined",
	} {
		n, err := parse(src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = (&env{f: f, now: now, done: map[string]any{}, busy: map[string]bool{}}).eval(n)
		if !IsUnsupported(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want unsupported %q", src, err, want)
		}
	}
	// A pattern RE2 cannot match as JavaScript would is refused as
	// unsupported, not as a broken base.
	if _, err := parse(`"a".replace(/(?<=a)b/, "")`); !IsUnsupported(err) || !strings.Contains(err.Error(), "not one this server can match the way JavaScript would") {
		t.Errorf("lookbehind: %v", err)
	}
	for _, bad := range []string{`a +`, `"open`, `a ? b : c`, `f(1,`, `(a`} {
		if _, err := parse(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// An unsupported name is an error before any row is read, even where no
// file would reach it.
func TestQueryChecksFirst(t *testing.T) {
	for src, want := range map[string]string{
		"filters: 'file.hasTag(\"none\") && frob()'\nviews: [{type: table, name: T}]":              "frob() is not supported",
		"formulas: {a: 'file.embeds'}\nviews: [{type: table, name: T}]":                            "file.embeds is not supported",
		"views: [{type: table, name: T, order: [formula.nope]}]":                                   "formula.nope is not defined",
		"views: [{type: table, name: T, filters: {or: ['file.hasTag(\"z\")', 'this.file.name']}}]": "`this`",
	} {
		b, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Query(t.Context(), "", shelf, now); !IsUnsupported(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want unsupported %q", src, err, want)
		}
	}
}

// TestDocumentedBehaviours: what the Bases documentation says each of
// these does (in expressions of our own), as the native evaluation does
// it: number literals with methods, regular expression literals in
// replace, split and matches, replace of a text pattern everywhere,
// split's count, object literals, the string methods repeat, reverse and
// title, a date property plus a duration, and division still dividing.
func TestDocumentedBehaviours(t *testing.T) {
	f := &File{Path: "A.md", Props: []metadata.Property{
		{Key: "start", Type: "date", Value: "2026-11-02"},
		{Key: "due", Type: "text", Value: "2026-12-01"},
		{Key: "n", Type: "number", Value: 6.0},
	}}
	cases := map[string]string{
		`123.toString()`:             "123",
		`5.isEmpty()`:                "false",
		`1.isTruthy()`:               "true",
		`(2.5).round()`:              "3",
		`"x:y:z".replace(":", "+")`:  "x+y+z",
		`"x:y:z".replace(/:/, "+")`:  "x+y:z",
		`"x:y:z".replace(/:/g, "+")`: "x+y+z",
		`"Ada Lovelace".replace(/(\w+) (\w+)/, "$2, $1")`:                "Lovelace, Ada",
		`"Ada Lovelace".replace(/(?<first>\w+) (\w+)/, "$2 $<first>$$")`: "Lovelace Ada$",
		`"ABC".replace(/b/i, "-")`:                                       "A-C",
		`"1;2;3;4;5".split(";", 2).join("|")`:                            "1|2",
		`"1;2;3".split(/;/, 5).join("|")`:                                "1|2|3",
		`"1;2;3".split(/;/).length`:                                      "3",
		`/ab+c/.matches("xabbbcx")`:                                      "true",
		`/^ab$/.matches("xab")`:                                          "false",
		`{}.isEmpty()`:                                                   "true",
		`{"a b": 1, c: n}.c`:                                             "6",
		`"ab".repeat(3)`:                                                 "ababab",
		`"déjà".reverse()`:                                               "àjéd",
		`"good morning all".title()`:                                     "Good Morning All",
		`(start + "2w").format("YYYY-MM-DD")`:                            "2026-11-16",
		`(due + "1d").format("YYYY-MM-DD")`:                              "2026-12-02",
		`n / 2 / 3`:                                                      "1",
		`(n) / 2`:                                                        "3",
	}
	for src, want := range cases {
		n, err := parse(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		e := &env{f: f, types: map[string]string{"due": "date"}, now: now, done: map[string]any{}, busy: map[string]bool{}}
		v, err := e.eval(n)
		if err != nil || toString(v) != want {
			t.Errorf("%s = %v (%v), want %s", src, toString(v), err, want)
		}
	}
}

// TestSummaries: the default summaries as the docs define them, over the
// view's rows and over each group's, and a base's own summary formula
// over values (they were dropped without a word).
func TestSummaries(t *testing.T) {
	item := func(path, kind string, price float64, done bool, when string) File {
		return File{Path: path, Props: []metadata.Property{
			{Key: "kind", Type: "text", Value: kind},
			{Key: "price", Type: "number", Value: price},
			{Key: "done", Type: "checkbox", Value: done},
			{Key: "when", Type: "date", Value: when},
		}}
	}
	files := []File{
		item("a.md", "book", 10, true, "2026-01-01"),
		item("b.md", "book", 30, false, "2026-01-11"),
		item("c.md", "tool", 5, true, "2026-02-01"),
		{Path: "d.md", Props: []metadata.Property{{Key: "kind", Type: "text", Value: "tool"}}},
	}
	src := `summaries:
  top: 'values.sort().reverse()[0]'
views:
  - type: table
    name: T
    order: [price]
    groupBy: {property: kind, direction: ASC}
    summaries: {price: Sum, done: Checked, when: Earliest, kind: Unique, file.name: Filled, formula.x: Average}
  - type: table
    name: All
    summaries: {price: Median, when: Range, done: Unchecked, kind: Empty}
  - type: table
    name: Custom
    summaries: {price: top}
  - type: table
    name: Deviation
    summaries: {price: Stddev}
  - type: table
    name: Nope
    summaries: {price: Mode}
formulas:
  x: 'price * 2'
`
	b, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	js := func(v any) string { data, _ := json.Marshal(v); return string(data) }
	res, err := b.Query(t.Context(), "T", files, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := js(res.Summaries), `{"done":2,"file.name":4,"formula.x":30,"kind":2,"price":45,"when":"2026-01-01"}`; got != want {
		t.Errorf("view summaries %s\nwant %s", got, want)
	}
	if got, want := js(res.Groups), `[{"group":"book","summaries":{"done":1,"file.name":2,"formula.x":40,"kind":1,"price":40,"when":"2026-01-01"}},`+
		`{"group":"tool","summaries":{"done":1,"file.name":2,"formula.x":10,"kind":1,"price":5,"when":"2026-02-01"}}]`; got != want {
		t.Errorf("group summaries %s\nwant %s", got, want)
	}
	res, err = b.Query(t.Context(), "All", files, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := js(res.Summaries), `{"done":1,"kind":0,"price":10,"when":2678400000}`; got != want {
		t.Errorf("All: %s\nwant %s", got, want)
	}
	res, err = b.Query(t.Context(), "Custom", files, now)
	if err != nil || js(res.Summaries) != `{"price":30}` {
		t.Errorf("a base's own summary: %s, %v", js(res.Summaries), err)
	}
	if _, err := b.Query(t.Context(), "Deviation", files, now); !IsUnsupported(err) || !strings.Contains(err.Error(), "Stddev") {
		t.Errorf("Stddev: %v", err)
	}
	if _, err := b.Query(t.Context(), "Nope", files, now); !IsUnsupported(err) || !strings.Contains(err.Error(), `"Mode", which is no default summary`) {
		t.Errorf("an unknown summary: %v", err)
	}
}
