package dataview

import "testing"

// Ported from Dataview's src/test/function/*.test.ts: each row names
// the file and the test it comes from.

func TestPortedFunctions(t *testing.T) {
	const fn = "function/functions.test.ts › "
	runEvalCases(t, []evalCase{
		{from: fn + "Evaluate lower(list)", expr: `lower(list("A", "B"))`, want: L("a", "b")},
		{from: fn + "Evaluate length(array)", expr: `length([1, 2])`, want: 2},
		{from: fn + "Evaluate length(array)", expr: `length([])`, want: 0},
		{from: fn + "Evaluate length(string)", expr: `length("hello")`, want: 5},
		{from: fn + "Evaluate length(string)", expr: `length("no")`, want: 2},
		{from: fn + "Evaluate length(string)", expr: `length("")`, want: 0},
		{from: fn + "Evaluate contains(object)", expr: `contains(object("hello", 1), "hello")`, want: true},
		{from: fn + "Evaluate contains(object)", expr: `contains(object("hello", 1), "no")`, want: false},
		{from: fn + "Evaluate contains(array)", expr: `contains(list("hello", 1), "hello")`, want: true},
		{from: fn + "Evaluate contains(array)", expr: `contains(list("hello", 1), 6)`, want: false},
		{from: fn + "Evaluate fuzzy contains(array)", expr: `contains(list("hello"), "he")`, want: true},
		{from: fn + "Evaluate fuzzy contains(array)", expr: `contains(list("hello"), "no")`, want: false},
		{from: fn + "Evaluate contains(string)", expr: `contains("hello", "hello")`, want: true},
		{from: fn + "Evaluate contains(string)", expr: `contains("meep", "me")`, want: true},
		{from: fn + "Evaluate contains(string)", expr: `contains("hello", "xd")`, want: false},
		{from: fn + "Evaluate non-fuzzy econtains(array)", expr: `econtains(list("hello"), "he")`, want: false},
		{from: fn + "Evaluate non-fuzzy econtains(array)", expr: `econtains(list("hello"), "hello")`, want: true},
		{from: fn + "Evaluate non-fuzzy econtains(array)", expr: `econtains(list("hello", 19), 1)`, want: false},
		{from: fn + "Evaluate non-fuzzy econtains(array)", expr: `econtains(list("hello", 19), 19)`, want: true},
		{from: fn + "Evaluate reverse(list)", expr: `reverse(list(1, 2, 3))`, wantExpr: `list(3, 2, 1)`},
		{from: fn + "Evaluate reverse(list)", expr: `reverse(list("a", "b", "c"))`, wantExpr: `list("c", "b", "a")`},
		{from: fn + "Evaluate flat()", expr: `flat(list(1, 2, 3, list(11, 12)))`, wantExpr: `list(1,2,3,11,12)`},
		{from: fn + "Evaluate flat()", expr: `flat(list(1, list(21, list(221, 222)), 3, list(11, 12)))`, wantExpr: `list(1,21,list(221,222),3,11,12)`},
		{from: fn + "Evaluate flat()", expr: `flat(list(1, list(2, list(3, list(4, list(5))))), 3)`, wantExpr: `list(1,2,3,4,list(5))`},
		{from: fn + "Evaluate flat()", expr: `flat(list(1, list(2, list(3, list(4, list(5))))), 10)`, wantExpr: `list(1,2,3,4,5)`},
		{from: fn + "Evaluate slice()", expr: `slice(list(1, 2, 3, 4, 5), 3)`, wantExpr: `list(4, 5)`},
		{from: fn + "Evaluate slice()", expr: `slice(list(1, 2, 3, 4, 5), 0, 2)`, wantExpr: `list(1, 2)`},
		{from: fn + "Evaluate slice()", expr: `slice(list(1, 2, 3, 4, 5), -2)`, wantExpr: `list(4, 5)`},
		{from: fn + "Evaluate slice()", expr: `slice(list(1, 2, 3, 4, 5), -1, 1)`, wantExpr: `list()`},
		{from: fn + "Evaluate slice()", expr: `slice(list(1, 2, 3, 4, 5))`, wantExpr: `list(1, 2, 3, 4, 5)`},
		{from: fn + "Evaluate slice()", expr: `slice(list(date("2021-01-01"), date("2022-02-02"), date("2023-03-03")), -2)`, want: L(D(2022, 2, 2), D(2023, 3, 3))},
		{from: fn + "Evaluate slice()", expr: `slice(["ant", "bison", "camel", "duck", "elephant"], -3)`, want: L("camel", "duck", "elephant")},
		{from: fn + "sort() › Evaluate sort(list)", expr: `sort(list(2, 3, 1))`, wantExpr: `list(1, 2, 3)`},
		{from: fn + "sort() › Evaluate sort(list)", expr: `sort(list("a", "c", "b"))`, wantExpr: `list("a", "b", "c")`},
		{from: fn + "sort() › Evaluate sort(list, func)", expr: `sort(list(2, 3, 1), (k) => 0-k)`, wantExpr: `list(3, 2, 1)`},
		{from: fn + "Evaluate display()", expr: `display("test")`, want: "test"},
		{from: fn + "Evaluate display()", expr: `display("[displayname](http://example.com)")`, want: "displayname"},
		{from: fn + "Evaluate display()", expr: `display("[[test]]")`, want: "test"},
		{from: fn + "Evaluate display()", expr: `display("[[test|displayname]]")`, want: "displayname"},
		{from: fn + "Evaluate display()", expr: `display("long [[test]] **with** [[test2|multiple]] [links](http://example.com)")`, want: "long test with multiple links"},
		{from: fn + "Evaluate display()", expr: `display(1)`, want: "1"},
		{from: fn + "Evaluate display()", expr: `display(true)`, want: "true"},
		{from: fn + "Evaluate display()", expr: `display(null)`, want: ""},
		{from: fn + "Evaluate display()", expr: `display(date("2024-11-18"))`, want: "November 18, 2024"},
		{from: fn + "Evaluate display()", expr: `display(dur("7 hours"))`, want: "7 hours"},
		{from: fn + "Evaluate display()", expr: `display(link("path/to/file.md"))`, want: "file"},
		{from: fn + "Evaluate display()", expr: `display(link("path/to/file.md", "displayname"))`, want: "displayname"},
		{from: fn + "Evaluate display()", expr: `display(list("test", 2, link("file.md")))`, want: "test, 2, file"},
		{from: fn + "Evaluate default()", expr: `default(null, 1)`, want: 1},
		{from: fn + "Evaluate default()", expr: `default(2, 1)`, want: 2},
		{from: fn + "Evaluate default()", expr: `default(list(1, null, null), 2)`, want: L(1, 2, 2)},
		{from: fn + "Evaluate ldefault()", expr: `ldefault(null, 1)`, want: 1},
		{from: fn + "Evaluate ldefault()", expr: `ldefault(2, 1)`, want: 2},
		{from: fn + "Evaluate choose()", expr: `choice(true, 1, 2)`, want: 1},
		{from: fn + "Evaluate choose()", expr: `choice(false, 1, 2)`, want: 2},
		{from: fn + "Evaluate hash()", expr: `hash("2024-03-17", "")`, want: 3259376374957153.0},
		{from: fn + "Evaluate hash()", expr: `hash("2024-03-17", 2)`, want: 271608741894590.0},
		{from: fn + "Evaluate hash()", expr: `hash("2024-03-17", "Home")`, want: 3041844187830523.0},
		{from: fn + "Evaluate hash()", expr: `hash("2024-03-17", "note a1", 21)`, want: 1143088188331616.0},
		{from: fn + "Evaluate 1 field extract()", expr: `extract(object("mtime", 1), "mtime")`, want: O("mtime", 1)},
		{from: fn + "Evaluate 2 field extract()", expr: `extract(object("mtime", 1, "yes", "hello"), "yes", "mtime")`, want: O("yes", "hello", "mtime", 1)},
		{from: fn + "Evaluate nonnull()", expr: `nonnull(null, null, 1)`, want: L(1)},
		{from: fn + "Evaluate nonnull()", expr: `nonnull("yes")`, want: L("yes")},
		{from: fn + "Evaluate date()", expr: `date([[2020-04-18]])`, want: D(2020, 4, 18)},
		{from: fn + "Evaluate date()", expr: `date([[Place|2021-04]])`, want: D(2021, 4, 1)},
		{from: fn + "Evaluate date()", expr: `date("12/31/2022", "MM/dd/yyyy")`, want: D(2022, 12, 31)},
		{from: fn + "Evaluate date()", expr: `date("210313", "yyMMdd")`, want: D(2021, 3, 13)},
		{from: fn + "Evaluate date()", expr: `date("946778645012","x")`, want: D(2000, 1, 2, 2, 4, 5, 12)},
		{from: fn + "Evaluate date()", expr: `date("946778645","X")`, want: D(2000, 1, 2, 2, 4, 5)},
		{from: fn + "Evaluate date()", expr: `date(null, "MM/dd/yyyy")`, want: nil},
	})
}

func TestPortedAggregation(t *testing.T) {
	const ag = "function/aggregation.test.ts › "
	runEvalCases(t, []evalCase{
		{from: ag + "map() › empty list", expr: `map([], (k) => 6)`, want: L()},
		{from: ag + "map() › number list", expr: `map([1, 2, 3], (k) => k + 4)`, want: L(5, 6, 7)},
		{from: ag + "map() › string list", expr: `map(["a", "be", "ced"], (k) => length(k))`, want: L(1, 2, 3)},
		{from: ag + "filter() › empty list", expr: `filter(list(), (k) => true)`, want: L()},
		{from: ag + "filter() › number list", expr: `filter(list(1, 2, 3), (k) => k >= 2)`, want: L(2, 3)},
		{from: ag + "unique() › empty", expr: `unique([])`, want: L()},
		{from: ag + "unique() › single", expr: `unique([1])`, want: L(1)},
		{from: ag + "unique() › multiple unique", expr: `unique([1, 1, 1])`, want: L(1)},
		{from: ag + "unique() › multiple same", expr: `unique([1, 3, 7, 3, 1])`, want: L(1, 3, 7)},
		{from: ag + "min() › empty", expr: `min()`, want: nil},
		{from: ag + "min() › single", expr: `min(6)`, want: 6},
		{from: ag + "min() › multiple", expr: `min(6, 9, 12)`, want: 6},
		{from: ag + "min() › list empty", expr: `min([])`, want: nil},
		{from: ag + "min() › list multiple", expr: `min([1, 2, 3])`, want: 1},
		{from: ag + "minby() › empty", expr: `minby([], (k) => k)`, want: nil},
		{from: ag + "minby() › single", expr: `minby([1], (k) => k)`, want: 1},
		{from: ag + "minby() › multiple", expr: `minby([1, 2, 3], (k) => 0 - k)`, want: 3},
		{from: ag + "max() › empty", expr: `max()`, want: nil},
		{from: ag + "max() › single", expr: `max(6)`, want: 6},
		{from: ag + "max() › multiple", expr: `max(6, 9, 12)`, want: 12},
		{from: ag + "max() › list empty", expr: `max([])`, want: nil},
		{from: ag + "max() › list multiple", expr: `max([1, 2, 3])`, want: 3},
		{from: ag + "maxby() › empty", expr: `maxby([], (k) => k)`, want: nil},
		{from: ag + "maxby() › single", expr: `maxby([1], (k) => k)`, want: 1},
		{from: ag + "maxby() › multiple", expr: `maxby([1, 2, 3], (k) => 0 - k)`, want: 1},
		{from: ag + "sum() › number list", expr: `sum([2, 3, 1])`, want: 6},
		{from: ag + "sum() › string list", expr: `sum(["a", "b", "c"])`, want: "abc"},
		{from: ag + "sum() › empty list", expr: `sum([])`, want: nil},
		{from: ag + "average() › number list", expr: `average([2, 3, 1])`, want: 2},
		{from: ag + "average() › number list", expr: `average(nonnull([2, 3, null, 1]))`, want: 2},
		{from: ag + "average() › empty list", expr: `average([])`, want: nil},
		{from: ag + "any() › true, false", expr: `any(true, false)`, want: true},
		{from: ag + "any() › [true, false]", expr: `any(list(true, false))`, want: true},
		{from: ag + "all() › true, false", expr: `all(true, false)`, want: false},
		{from: ag + "all() › true, [false]", expr: `all(true, list(false))`, want: true},
		{from: ag + "all() › [true, false]", expr: `all(list(true, false))`, want: false},
		{from: ag + "all() › vectorized", expr: `all(regexmatch("a+", list("a", "aaaa")))`, want: true},
		{from: ag + "all() › vectorized", expr: `all(regexmatch("a+", list("a", "aaab")))`, want: false},
		{from: ag + "all() › vectorized", expr: `any(regexmatch("a+", list("a", "aaab")))`, want: true},
		{from: ag + "all() › vectorized", expr: `all(regextest("a+", list("a", "aaaa")))`, want: true},
		{from: ag + "all() › vectorized", expr: `all(regextest("a+", list("a", "aaab")))`, want: true},
		{from: ag + "all() › vectorized", expr: `any(regextest("a+", list("a", "aaab")))`, want: true},
		{from: ag + "nonnull() › empty", expr: `nonnull([])`, want: L()},
		{from: ag + "nonnull() › [null, false]", expr: `nonnull([null, false])`, want: L(false)},
		{from: ag + "firstvalue() › empty", expr: `firstvalue([])`, want: nil},
		{from: ag + "firstvalue() › null", expr: `firstvalue(null)`, want: nil},
		{from: ag + "firstvalue() › [1, 2, 3]", expr: `firstvalue([1, 2, 3])`, want: 1},
		{from: ag + "firstvalue() › [null, 1, 2]", expr: `firstvalue([null, 1, 2])`, want: 1},
	})
}

func TestPortedStrings(t *testing.T) {
	const st = "function/string.test.ts › "
	runEvalCases(t, []evalCase{
		{from: st + "regexreplace() › letter", expr: `regexreplace("yes", "y", "no")`, want: "noes"},
		{from: st + "regexreplace() › full", expr: `regexreplace("yes", "yes", "no")`, want: "no"},
		{from: st + "regexreplace() › regex", expr: `regexreplace("yes", ".+", "no")`, want: "no"},
		{from: st + "containsword() › single word", expr: `containsword("yes", "yes")`, want: true},
		{from: st + "containsword() › two word", expr: `containsword("yes no", "no")`, want: true},
		{from: st + "containsword() › negative two word", expr: `containsword("yes no", "maybe")`, want: false},
		{from: st + "containsword() › subword", expr: `containsword("Hello there, chap!", "the")`, want: false},
		{from: st + "containsword() › punctuation", expr: `containsword("Hello there, chap!", "there")`, want: true},
		{from: st + "containsword() › case insensitive", expr: `containsword("Hello there, chap!", "hello")`, want: true},
		{from: st + "containsword() › case insensitive 2", expr: `containsword("Hello there, chap!", "HELLO")`, want: true},
		{from: st + "regextest() › .+", expr: `regextest(".+", "stuff")`, want: true},
		{from: st + "regextest() › .+ empty", expr: `regextest(".+", "")`, want: false},
		{from: st + "regextest() › .* empty", expr: `regextest(".*", "")`, want: true},
		{from: st + "regextest() › word", expr: `regextest("\\w+", "m3me")`, want: true},
		{from: st + "regextest() › whitespace", expr: `regextest("\\s+", "  ")`, want: true},
		{from: st + "regextest() › exact", expr: `regextest("what", "what")`, want: true},
		{from: st + "regextest() › not exact", expr: `regextest("what", "what are you doing?")`, want: true},
		{from: st + "regextest() › start & end", expr: `regextest("^what$", "what")`, want: true},
		{from: st + "regexmatch() › .+", expr: `regexmatch(".+", "stuff")`, want: true},
		{from: st + "regexmatch() › .+ empty", expr: `regexmatch(".+", "")`, want: false},
		{from: st + "regexmatch() › .* empty", expr: `regexmatch(".*", "")`, want: true},
		{from: st + "regexmatch() › word", expr: `regexmatch("\\w+", "m3me")`, want: true},
		{from: st + "regexmatch() › whitespace", expr: `regexmatch("\\s+", "  ")`, want: true},
		{from: st + "regexmatch() › exact", expr: `regexmatch("what", "what")`, want: true},
		{from: st + "replace() › letter", expr: `replace("hello", "h", "me")`, want: "meello"},
		{from: st + "replace() › full", expr: `replace("meep", "meep", "pleh")`, want: "pleh"},
		{from: st + "replace() › ignores regex", expr: `replace("x.z", "x.", "z$")`, want: "z$z"},
		{from: st + "replace() › ignores regex dot", expr: `replace("x.z", ".", "z")`, want: "xzz"},
		{from: st + "lower() › idempotent", expr: `lower("hello")`, want: "hello"},
		{from: st + "lower() › Hello", expr: `lower("Hello")`, want: "hello"},
		{from: st + "upper() › Hello", expr: `upper("Hello")`, want: "HELLO"},
		{from: st + "upper() › hello", expr: `upper("hello")`, want: "HELLO"},
		{from: st + "upper() › idempotent", expr: `upper("HELLO")`, want: "HELLO"},
		{from: st + "split(string, string)", expr: `split("hello world", " ")`, wantExpr: `list("hello", "world")`},
		{from: st + "split(string, string)", expr: `split("hello world", "( )")`, wantExpr: `list("hello", " ", "world")`},
		{from: st + "split(string, string)", expr: `split("hello  world", "\\s+")`, wantExpr: `list("hello", "world")`},
		{from: st + "split(string, string)", expr: `split("hello world", "x")`, wantExpr: `list("hello world")`},
		{from: st + "split(string, string)", expr: `split("hello world", "( )(x)?")`, wantExpr: `list("hello", " ", "", "world")`},
		{from: st + "split(string, string)", expr: `split("hello there world", "(t?here)")`, wantExpr: `list("hello ", "there", " world")`},
		{from: st + "split(string, string)", expr: `split("hello there world", "( )(x)?")`, wantExpr: `list("hello", " ", "", "there", " ", "", "world")`},
		{from: st + "split(string, string, limit)", expr: `split("hello world", " ", 0)`, wantExpr: `list()`},
		{from: st + "split(string, string, limit)", expr: `split("hello world", " ", 1)`, wantExpr: `list("hello")`},
		{from: st + "split(string, string, limit)", expr: `split("hello world", " ", 3)`, wantExpr: `list("hello", "world")`},
		{from: st + "split(string, string, limit)", expr: `split("hello world", "( )", 2)`, wantExpr: `list("hello", " ")`},
		{from: st + "startswith() › (yes, ye)", expr: `startswith("yes", "ye")`, want: true},
		{from: st + "startswith() › (Yes, ye)", expr: `startswith("Yes", "ye")`, want: false},
		{from: st + "startswith() › (yes, no)", expr: `startswith("yes", "no")`, want: false},
		{from: st + "endswith() › (yes, ye)", expr: `endswith("yes", "ye")`, want: false},
		{from: st + "endswith() › (yes, es)", expr: `endswith("yes", "es")`, want: true},
		{from: st + "endswith() › (yes, no)", expr: `endswith("yes", "no")`, want: false},
		{from: st + "padleft() › (hello, 10)", expr: `padleft("hello", 10)`, want: "     hello"},
		{from: st + "padleft() › (hello, 7)", expr: `padleft("hello", 7)`, want: "  hello"},
		{from: st + "padleft() › (hello, 7, x)", expr: `padleft("hello", 7, "x")`, want: "xxhello"},
		{from: st + "padright() › (hello, 10)", expr: `padright("hello", 10)`, want: "hello     "},
		{from: st + "padright() › (hello, 7)", expr: `padright("hello", 7)`, want: "hello  "},
		{from: st + "padright() › (hello, 7, x)", expr: `padright("hello", 7, "x")`, want: "helloxx"},
		{from: st + "padright() › (, 1)", expr: `padright("", 1)`, want: " "},
		{from: st + "substring() › (yes, 1)", expr: `substring("yes", 1)`, want: "es"},
		{from: st + "substring() › (hello, 3)", expr: `substring("hello", 3)`, want: "lo"},
		{from: st + "substring() › (hello, 3, 20)", expr: `substring("hello", 3, 20)`, want: "lo"},
		{from: st + "substring() › (hello, 2, 4)", expr: `substring("hello", 2, 4)`, want: "ll"},
		{from: st + "substring() › (, 0)", expr: `substring("", 0)`, want: ""},
		{from: st + "truncate() › 8", expr: `truncate("Hello There!", 8)`, want: "Hello..."},
		{from: st + "truncate() › 10", expr: `truncate("Hello There!", 10)`, want: "Hello T..."},
		{from: st + "truncate() › 10", expr: `truncate("Hello There!", 10, "!")`, want: "Hello The!"},
	})
}

func TestPortedCoerceConstructorsMeta(t *testing.T) {
	const co, cn, me, ve = "function/coerce.test.ts › ", "function/constructors.test.ts › ", "function/meta.test.ts › ", "function/vectorization.test.ts › "
	runEvalCases(t, []evalCase{
		{from: co + "number()", expr: `number("hmm")`, want: nil},
		{from: co + "number()", expr: `number(34)`, want: 34},
		{from: co + "number()", expr: `number("34")`, want: 34},
		{from: co + "number()", expr: `number("17 years")`, want: 17},
		{from: co + "number()", expr: `number("-19")`, want: -19},
		{from: co + "string() › number", expr: `string(18)`, want: "18"},
		{from: co + "list()", expr: `list(1, 2, 3)`, want: L(1, 2, 3)},
		{from: co + "list()", expr: `list()`, want: L()},
		{from: co + "object()", expr: `object()`, want: O()},
		{from: co + "object()", expr: `object("hello", 1)`, want: O("hello", 1)},
		{from: cn + "dur() › 8 minutes", expr: `dur("8 minutes")`, want: Dur("minutes", 8)},
		{from: cn + "dur() › 3 hrs", expr: `dur("3 hrs")`, want: Dur("hours", 3)},
		{from: cn + "dur() › 2 days, 6 minutes", expr: `dur("2 days, 6 minutes")`, want: Dur("days", 2, "minutes", 6)},
		{from: cn + "typeof() › string", expr: `typeof("nice")`, want: "string"},
		{from: cn + "typeof() › object", expr: `typeof({a: 1, b: 2})`, want: "object"},
		{from: cn + "typeof() › array", expr: `typeof(["nice"])`, want: "array"},
		{from: cn + "typeof() › number", expr: `typeof(18.4)`, want: "number"},
		{from: me + "Evaluate meta(link).display", expr: `meta([[2021-11-01|Displayed link text]]).display`, want: "Displayed link text"},
		{from: me + "Evaluate meta(link).display", expr: `meta([[2021-11-01]]).display`, want: nil},
		{from: me + "Evaluate meta(link).path", expr: `meta([[My Project#Next Actions]]).path`, want: "My Project"},
		{from: me + "Evaluate meta(link).path", expr: `meta([[My Project#^9bcbe8]]).path`, want: "My Project"},
		{from: me + "Evaluate meta(link).path", expr: `meta([[My Project]]).path`, want: "My Project"},
		{from: me + "Evaluate meta(link).subpath", expr: `meta([[My Project#Next Actions]]).subpath`, want: "Next Actions"},
		{from: me + "Evaluate meta(link).subpath", expr: `meta([[My Project#^9bcbe8]]).subpath`, want: "9bcbe8"},
		{from: me + "Evaluate meta(link).subpath", expr: `meta([[My Project]]).subpath`, want: nil},
		{from: me + "Evaluate meta(link).type", expr: `meta([[My Project]]).type`, want: "file"},
		{from: me + "Evaluate meta(link).type", expr: `meta([[My Project#Next Actions]]).type`, want: "header"},
		{from: me + "Evaluate meta(link).type", expr: `meta([[My Project#^9bcbe8]]).type`, want: "block"},
		{from: ve + "Single List Argument › replace(list, string, string)", expr: `replace(list("yes", "re"), "e", "a")`, want: L("yas", "ra")},
		{from: ve + "Single List Argument › lower(list)", expr: `lower(["YES", "nO"])`, want: L("yes", "no")},
		{from: ve + "Single List Argument › upper(list)", expr: `upper(["okay", "yep", "1"])`, want: L("OKAY", "YEP", "1")},
		{from: ve + "Multi-List Arguments › replace(list, list, string)", expr: `replace(["a", "b", "c"], ["a", "b", "c"], "d")`, want: L("d", "d", "d")},
		{from: ve + "Multi-List Arguments › replace(list, string, list)", expr: `replace(["a", "b", "c"], "a", ["d", "e", "f"])`, want: L("d", "b", "c")},
		{from: ve + "Multi-List Arguments › replace(list, list, list)", expr: `replace(["a", "b", "c"], ["a", "b", "c"], ["x", "y", "z"])`, want: L("x", "y", "z")},
	})
}

// Fields' constructors, as Dataview's tests build expressions.
func fLit(v any) field                       { return litField{num64(v)} }
func fVar(n string) field                    { return varField{n} }
func fBin(l field, op string, r field) field { return binField{op, l, r} }

// fIndexVariable is Fields.indexVariable("a.b.c").
func fIndexVariable(path string) field {
	parts := splitDots(path)
	var f field = varField{parts[0]}
	for _, p := range parts[1:] {
		f = indexField{f, litField{p}}
	}
	return f
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func TestPortedEval(t *testing.T) {
	const ev = "function/eval.test.ts › "
	ctxEval := func(c *Context, f field) any {
		t.Helper()
		v, err := c.eval(f, &scope{})
		if err != nil {
			t.Fatalf("%v", err)
		}
		return v
	}
	for _, c := range []struct {
		from string
		f    field
		want any
	}{
		{ev + "Evaluate simple numeric operations", fBin(fLit(2), "+", fLit(4)), 6.0},
		{ev + "Evaluate simple numeric operations", fBin(fLit(2), "-", fLit(4)), -2.0},
		{ev + "Evaluate simple numeric operations", fBin(fLit(2), "*", fLit(4)), 8.0},
		{ev + "Evaluate simple numeric operations", fBin(fLit(8), "/", fLit(4)), 2.0},
		{ev + "Evaluate numeric comparisons", fBin(fLit(8), "<", fLit(4)), false},
		{ev + "Evaluate numeric comparisons", fBin(fLit(-2), "=", fLit(-2)), true},
		{ev + "Evaluate numeric comparisons", fBin(fLit(-2), ">=", fLit(-8)), true},
		{ev + "Evaluate simple string operations", fBin(fLit("a"), "+", fLit("b")), "ab"},
		{ev + "Evaluate simple string operations", fBin(fLit("a"), "+", fLit(12)), "a12"},
		{ev + "Evaluate simple string operations", fBin(fLit("a"), "*", fLit(6)), "aaaaaa"},
		{ev + "Evaluate string comparisons", fBin(fLit("abc"), "<", fLit("abd")), true},
		{ev + "Evaluate string comparisons", fBin(fLit("xyz"), "=", fLit("xyz")), true},
	} {
		if got := ctxEval(simpleContext(), c.f); !equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.from, got, c.want)
		}
	}
	runEvalCases(t, []evalCase{
		{from: ev + "Evaluate complex numeric operations", expr: `12 + 8 - 4 / 2`, want: 18},
		{from: ev + "Evaluate complex numeric operations", expr: `16 / 8 / 2`, want: 1},
		{from: ev + "Evaluate complex numeric operations", expr: `39 / 3 <= 14`, want: true},
		{from: ev + "Evaluate date comparisons", expr: `date(2021-01-14) = date(2021-01-14)`, want: true},
		{from: ev + "Evaluate date comparisons", expr: `contains(list(date(2020-01-01)), date(2020-01-01))`, want: true},
		{from: ev + "Immediately Invoked Lambdas › Addition", expr: `((a, b) => a + b)(1, 2)`, want: 3},
		{from: ev + "Immediately Invoked Lambdas › Negation", expr: `((v) => 0-v)(6)`, want: -6},
		{from: ev + "Immediately Invoked Lambdas › Curried", expr: `((a) => (b) => a + b)(1)(2)`, want: 3},
		{from: ev + "Immediately Invoked Lambdas › In Argument", expr: `((a) => 1 + a)(((a) => 2)(3))`, want: 3},
		{from: ev + "Immediately Indexed Objects › Empty", expr: `{ a: 1, b: 2 }["c"]`, want: nil},
		{from: ev + "Immediately Indexed Objects › Single", expr: `{ a: 1, b: 2 }["a"]`, want: 1},
		{from: ev + "Immediately Indexed Objects › Nested", expr: `{ a: 1, b: { c: 4 } }["b"]["c"]`, want: 4},
	})

	// Evaluate date subtraction: the duration's own years (luxon's .years).
	if d, err := parseEval(t, "date(2021-05-04) - date(1997-05-17)"); err != nil || d.(Duration).v[uYears] != 23 {
		t.Errorf(ev+"Evaluate date subtraction: %v, %v", d, err)
	}

	// Field resolution: globals set on the context.
	c := simpleContext()
	c.globals.Set("a", 18.0)
	c.globals.Set("b", "hello")
	for name, want := range map[string]any{"a": 18.0, "b": "hello", "c": nil} {
		if got := ctxEval(c, fVar(name)); !equal(got, want) {
			t.Errorf(ev+"Evaluate simple field resolution: %s = %v, want %v", name, got, want)
		}
	}
	inner := O("final", 6)
	c = simpleContext()
	c.globals.Set("obj", O("inner", inner))
	if got := ctxEval(c, fIndexVariable("obj.inner")); !equal(got, inner) {
		t.Errorf(ev+"Evaluate simple object resolution: obj.inner = %v", got)
	}
	if got := ctxEval(c, fIndexVariable("obj.inner.final")); !equal(got, 6.0) {
		t.Errorf(ev+"Evaluate simple object resolution: obj.inner.final = %v", got)
	}
	c = simpleContext()
	c.links = simpleLinks{resolve: func(string) *Object { return O("inner", inner) }}
	c.globals.Set("link", FileLink("test"))
	if got := ctxEval(c, fIndexVariable("link.inner")); !equal(got, inner) {
		t.Errorf(ev+"Evaluate simple link resolution: link.inner = %v", got)
	}
	if got := ctxEval(c, fIndexVariable("link.inner.final")); !equal(got, 6.0) {
		t.Errorf(ev+"Evaluate simple link resolution: link.inner.final = %v", got)
	}
}
