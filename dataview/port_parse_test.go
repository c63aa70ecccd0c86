package dataview

import (
	"reflect"
	"testing"
	"time"
)

// Ported from Dataview's src/test/parse/parse.expression.test.ts.

func fIndex(o, i field) field            { return indexField{o, i} }
func fFunc(f field, args ...field) field { return funcField{f, append([]field{}, args...)} }
func fNeg(f field) field                 { return negField{f} }
func fLambda(args []string, body field) field {
	return lambdaField{args, body}
}
func fListF(xs ...field) field { return listField{append([]field{}, xs...)} }
func fObj(kv ...any) field {
	o := objField{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.keys = append(o.keys, kv[i].(string))
		o.vals = append(o.vals, kv[i+1])
	}
	return o
}

func linkFile(p string, embed bool, display string) *Link {
	return &Link{Path: p, Embed: embed, Display: display, Type: "file"}
}

func mustParse(t *testing.T, p *parser, text string) any {
	t.Helper()
	v, err := parseAll(p, text)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return v
}

func TestPortedParseLiterals(t *testing.T) {
	const pe = "parse/parse.expression.test.ts › "
	g := testGrammar
	fails := []struct {
		from string
		p    *parser
		text string
	}{
		{pe + "Parse Integer Literal", g.number, "0no"},
		{pe + "Parse Float Literal", g.number, "123.0.0"},
		{pe + "String Literals › Parse String Literal", g.str_, `this won't work, no quotes`},
		{pe + "String Literals › Parse String Literal", g.str_, `"\\""`},
		{pe + "Parse boolean literal", g.boolean, "fal"},
		{pe + "Identifiers › 0no", g.identifier, "0no"},
		{pe + "Identifiers › a*b", g.identifier, "a*b"},
		{pe + "Parse invalid date", g.date, "4237-14-73"},
	}
	for _, f := range fails {
		if v, err := parseAll(f.p, f.text); err == nil {
			t.Errorf("%s: %q parsed as %v, want a failure", f.from, f.text, v)
		}
	}
	values := []struct {
		from string
		p    *parser
		text string
		want any
	}{
		{pe + "Parse Integer Literal", g.number, "123", 123.0},
		{pe + "Parse Integer Literal", g.number, "-123", -123.0},
		{pe + "Parse Float Literal", g.number, "123.45", 123.45},
		{pe + "Parse Float Literal", g.number, "1000.0", 1000.0},
		{pe + "Parse Float Literal", g.number, "-123.18", -123.18},
		{pe + "String Literals › Parse String Literal", g.str_, `"hello"`, "hello"},
		{pe + "String Literals › Parse String Literal", g.str_, `"\""`, `"`},
		{pe + "String Literals › Parse String Literal", g.str_, `"\\\""`, `\"`},
		{pe + "String Literals › Parse String Literal", g.str_, `"\w+"`, `\w+`},
		{pe + "String Literals › Parse Empty String Literal", g.str_, `""`, ""},
		{pe + "String Literals › Parse String Escape", g.str_, `"\""`, `"`},
		{pe + "String Literals › Parse String Escape Escape", g.str_, `"\\"`, `\`},
		{pe + "String Literals › Parse emoji", g.str_, `"📷"`, "📷"},
		{pe + "String Literals › Parse emoji", g.str_, `"⚙️"`, "⚙️"},
		{pe + "String Literals › Parse string which includes emoji", g.str_, `"⚗️ KNOWLEDGE"`, "⚗️ KNOWLEDGE"},
		{pe + "Parse boolean literal", g.boolean, "true", true},
		{pe + "Parse boolean literal", g.boolean, "false", false},
		{pe + "Tag Literals › Daily", g.tag, "#daily/2021/20/08", "#daily/2021/20/08"},
		{pe + "Tag Literals › Dashes", g.tag, "#hello-from-marketing/yes", "#hello-from-marketing/yes"},
		{pe + "Tag Literals › #📷", g.tag, "#📷", "#📷"},
		{pe + "Tag Literals › #🌱/🌿", g.tag, "#🌱/🌿", "#🌱/🌿"},
		{pe + "Tag Literals › #⚙️", g.tag, "#⚙️", "#⚙️"},
		{pe + "Tag Literals › #début", g.tag, "#début", "#début"},
		{pe + "Identifiers › lma0", g.identifier, "lma0", "lma0"},
		{pe + "Identifiers › 😊", g.identifier, "😊", "😊"},
		{pe + "Identifiers › 📷", g.identifier, "📷", "📷"},
		{pe + "Durations › 6 days", g.duration, "6 days", Dur("days", 6)},
		{pe + "Durations › 6 days", g.duration, "6day", Dur("days", 6)},
		{pe + "Durations › 4 minutes", g.duration, "4min", Dur("minutes", 4)},
		{pe + "Durations › 4 minutes", g.duration, "4 minutes", Dur("minutes", 4)},
		{pe + "Durations › 4 minutes", g.duration, "4 minute", Dur("minutes", 4)},
		{pe + "Durations › 4 hours 15 minutes", g.duration, "4 hr 15 min", Dur("hours", 4, "minutes", 15)},
		{pe + "Durations › 4 hours 15 minutes", g.duration, "4h15m", Dur("hours", 4, "minutes", 15)},
		{pe + "Durations › 4 hours 15 minutes", g.duration, "4 hours, 15 minutes", Dur("hours", 4, "minutes", 15)},
		{pe + "Durations › 4 years 6 weeks 9 minutes 3 seconds", g.duration, "4 years 6 weeks 9 minutes 3 seconds", Dur("years", 4, "weeks", 6, "minutes", 9, "seconds", 3)},
		{pe + "Durations › 4 years 6 weeks 9 minutes 3 seconds", g.duration, "4yr6w9m3s", Dur("years", 4, "weeks", 6, "minutes", 9, "seconds", 3)},
		{pe + "Durations › 4 years 6 weeks 9 minutes 3 seconds", g.duration, "4 yrs, 6 wks, 9 mins, 3 s", Dur("years", 4, "weeks", 6, "minutes", 9, "seconds", 3)},
		{pe + "Parse Link › escaped pipe", g.link, `[[Hello \| There]]`, linkFile("Hello | There", false, "")},
		{pe + "Parse Link › escaped pipe with display", g.link, `[[\||Yes]]`, linkFile("|", false, "Yes")},
	}
	for _, c := range values {
		if got := mustParse(t, c.p, c.text); !equal(got, c.want) {
			t.Errorf("%s: %q = %#v, want %#v", c.from, c.text, got, c.want)
		}
	}
}

func TestPortedParseDates(t *testing.T) {
	const pe = "parse/parse.expression.test.ts › "
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no zone database here:", err)
	}
	for _, c := range []struct {
		from, text string
		want       time.Time
		zone       string
	}{
		{pe + "Parse Year-Month date", "2020-04", D(2020, 4, 1), "UTC"},
		{pe + "Parse Year-Month-Day date", "1984-08-15", D(1984, 8, 15), "UTC"},
		{pe + "Parse Year-Month-DayTHour:Minute:Second", "1984-08-15T12:42:59", D(1984, 8, 15, 12, 42, 59), "UTC"},
		{pe + "Parse Year-Month-DayTHour:Minute:Second.Millisecond", "1984-08-15T12:42:59.123", D(1984, 8, 15, 12, 42, 59, 123), "UTC"},
		{pe + "Parse Year-Month-DayTHour:Minute:Second.Millisecond", "1984-08-15T12:42:59.123Z", D(1984, 8, 15, 12, 42, 59, 123), "UTC"},
		{pe + "…Timezone › Offset", "1984-08-15T12:40:50-07:00", time.Date(1984, 8, 15, 12, 40, 50, 0, time.FixedZone("UTC-7", -7*3600)), "UTC-7"},
		{pe + "…Timezone › Offset", "1984-08-15T12:40:50+9", time.Date(1984, 8, 15, 12, 40, 50, 0, time.FixedZone("UTC+9", 9*3600)), "UTC+9"},
		{pe + "…Timezone › Offset", "1985-12-06T19:40:10+06:30", time.Date(1985, 12, 6, 19, 40, 10, 0, time.FixedZone("UTC+6:30", 6*3600+1800)), "UTC+6:30"},
		{pe + "…Timezone › Named timezone", "2021-08-15T12:40:50[Europe/Paris]", time.Date(2021, 8, 15, 12, 40, 50, 0, paris), "Europe/Paris"},
		{pe + "…Timezone › Named timezone", "2021-11-15T12:40:50[Europe/Paris]", time.Date(2021, 11, 15, 12, 40, 50, 0, paris), "Europe/Paris"},
		{pe + "…Timezone › Z", "1985-12-06T19:40:10Z", D(1985, 12, 6, 19, 40, 10), "UTC"},
		{pe + "…Timezone › Z", "1985-12-06T19:40:10.123Z", D(1985, 12, 6, 19, 40, 10, 123), "UTC"},
	} {
		got := mustParse(t, testGrammar.date, c.text).(time.Time)
		if !got.Equal(c.want) || zoneName(got) != c.zone {
			t.Errorf("%s: %q = %v (%s), want %v (%s)", c.from, c.text, got, zoneName(got), c.want, c.zone)
		}
	}
	// Named timezone: toString() is the ISO time with the zone's offset.
	for text, want := range map[string]string{
		"2021-08-15T12:40:50[Europe/Paris]": "2021-08-15T12:40:50.000+02:00",
		"2021-11-15T12:40:50[Europe/Paris]": "2021-11-15T12:40:50.000+01:00",
	} {
		if got := isoDate(mustParse(t, testGrammar.date, text).(time.Time)); got != want {
			t.Errorf(pe+"…Timezone › Named timezone: %q = %s, want %s", text, got, want)
		}
	}
	// Parse Today: date(today) is the start of today.
	f := mustParse(t, testGrammar.field, "date(today)").(litField)
	if got := f.v.(time.Time); !got.Equal(startOf(fixedNow, "day")) {
		t.Errorf(pe+"Parse Today: %v", got)
	}
}

func TestPortedParseFields(t *testing.T) {
	const pe = "parse/parse.expression.test.ts › "
	header := func(p, h string, embed bool, display string) *Link {
		return &Link{Path: p, Subpath: h, Type: "header", Embed: embed, Display: display}
	}
	block := func(p, b string, embed bool, display string) *Link {
		return &Link{Path: p, Subpath: b, Type: "block", Embed: embed, Display: display}
	}
	v := fVar
	for _, c := range []struct {
		from, text string
		want       field
	}{
		{pe + "Parse Link › simple", "[[test/Main]]", fLit(linkFile("test/Main", false, ""))},
		{pe + "Parse Link › extension", "[[test/Main.md]]", fLit(linkFile("test/Main.md", false, ""))},
		{pe + "Parse Link › number", "[[simple0]]", fLit(linkFile("simple0", false, ""))},
		{pe + "Parse Link › date", "[[2020-08-15]]", fLit(linkFile("2020-08-15", false, ""))},
		{pe + "Parse Link › glyphs", "[[%Man & Machine + Mind%]]", fLit(linkFile("%Man & Machine + Mind%", false, ""))},
		{pe + "Parse link with display", "[[test/Main|Yes]]", fLit(linkFile("test/Main", false, "Yes"))},
		{pe + "Parse link with display", "[[%Man + Machine%|0h no]]", fLit(linkFile("%Man + Machine%", false, "0h no"))},
		{pe + "Parse link with header/block", "[[test/Main#Yes]]", fLit(header("test/Main", "Yes", false, ""))},
		{pe + "Parse link with header/block", "[[2020#^14df]]", fLit(block("2020", "14df", false, ""))},
		{pe + "Parse link with header and display", "[[test/Main#what|Yes]]", fLit(header("test/Main", "what", false, "Yes"))},
		{pe + "Parse link with header and display", "[[%Man + Machine%#^no|0h no]]", fLit(block("%Man + Machine%", "no", false, "0h no"))},
		{pe + "Parse embedded link", "![[hello]]", fLit(linkFile("hello", true, ""))},
		{pe + "Parse Null", "null", fLit(nil)},
		{pe + "Parse Null", `"null"`, fLit("null")},
		{pe + "Parse Dot Notation", "Dates.Birthday", fIndex(v("Dates"), fLit("Birthday"))},
		{pe + "Parse Dot Notation", "a.b.c3", fIndex(fIndex(v("a"), fLit("b")), fLit("c3"))},
		{pe + "Parse Index Notation", "a[0]", fIndex(v("a"), fLit(0))},
		{pe + "Parse Index Notation", `"hello"[0]`, fIndex(fLit("hello"), fLit(0))},
		{pe + "Parse Index Notation", "hello[brain]", fIndex(v("hello"), v("brain"))},
		{pe + "Parse Mixed Index/Dot Notation", "a.b[0]", fIndex(fIndex(v("a"), fLit("b")), fLit(0))},
		{pe + "Parse Mixed Index/Dot Notation", `"hello".what[yes]`, fIndex(fIndex(fLit("hello"), fLit("what")), v("yes"))},
		{pe + "Parse negated index", "!a[b]", fNeg(fIndex(v("a"), v("b")))},
		{pe + "Parse negated index", "!a.b", fNeg(fIndex(v("a"), fLit("b")))},
		{pe + "Parse function with no arguments", "hello()", fFunc(v("hello"))},
		{pe + "Parse function with no arguments", "lma0()", fFunc(v("lma0"))},
		{pe + "Parse function with arguments", "list(1, 2, 3)", fFunc(v("list"), fLit(1), fLit(2), fLit(3))},
		{pe + "Parse function with arguments", `object("a", 1, "b", 2)`, fFunc(v("object"), fLit("a"), fLit(1), fLit("b"), fLit(2))},
		{pe + "Parse function with duration", "today() + dur(4hr)", fBin(fFunc(v("today")), "+", fLit(Dur("hours", 4)))},
		{pe + "Parse null duration", "dur(null)", fFunc(v("dur"), fLit(nil))},
		{pe + "Parse null duration", `dur("null")`, fFunc(v("dur"), fLit("null"))},
		{pe + "Parse function with null duration", "today() + dur(null)", fBin(fFunc(v("today")), "+", fFunc(v("dur"), fLit(nil)))},
		{pe + "Parse date +/- null", "today() + null", fBin(fFunc(v("today")), "+", fLit(nil))},
		{pe + "Parse date +/- null", "today() - null", fBin(fFunc(v("today")), "-", fLit(nil))},
		{pe + "Parse function with mixed dot, index, and function call", "list().parts[0]", fIndex(fIndex(fFunc(v("list")), fLit("parts")), fLit(0))},
		{pe + "Lambda Expressions › Parse 0-argument constant lambda", "() => 16", fLambda(nil, fLit(16))},
		{pe + "Lambda Expressions › Parse 0-argument binary op lambda", "() => a + 2", fLambda(nil, fBin(v("a"), "+", fLit(2)))},
		{pe + "Lambda Expressions › Parse 1-argument lambda", "(v) => v", fLambda([]string{"v"}, v("v"))},
		{pe + "Lambda Expressions › Parse 2-argument lambda", "(yes, no) => yes - no", fLambda([]string{"yes", "no"}, fBin(v("yes"), "-", v("no")))},
		{pe + "Lists › []", "[]", fListF()},
		{pe + "Lists › [1]", "[1]", fListF(fLit(1))},
		{pe + "Lists › [1, 2]", "[1,2]", fListF(fLit(1), fLit(2))},
		{pe + "Lists › [1, 2, 3]", "[ 1,  2, 3   ]", fListF(fLit(1), fLit(2), fLit(3))},
		{pe + `Lists › ["a"]`, `["a" ]`, fListF(fLit("a"))},
		{pe + "Lists › [[]]", "[ [] ]", fListF(fListF())},
		{pe + "Objects › {}", "{}", fObj()},
		{pe + "Objects › { a: 1 }", "{ a: 1 }", fObj("a", fLit(1))},
		{pe + `Objects › { "a": 1 }`, `{ "a": 1 }`, fObj("a", fLit(1))},
		{pe + `Objects › { "yes no": 1 }`, `{ "yes no": 1 }`, fObj("yes no", fLit(1))},
		{pe + "Objects › {a:1,b:[2]}", "{ a: 1, b: [2] }", fObj("a", fLit(1), "b", fListF(fLit(2)))},
		{pe + "Binary Operators › Simple Addition", `16 + "what"`, fBin(fLit(16), "+", fLit("what"))},
		{pe + "Binary Operators › Simple Division", "14 / 2", fBin(fLit(14), "/", fLit(2))},
		{pe + "Binary Operators › Simple Division", "31 / 9.0", fBin(fLit(31), "/", fLit(9.0))},
		{pe + "Binary Operators › Simple Modulo", "14 % 2", fBin(fLit(14), "%", fLit(2))},
		{pe + "Binary Operators › Simple Modulo", "31 % 9.0", fBin(fLit(31), "%", fLit(9.0))},
		{pe + "Binary Operators › Multiplication (No Spaces)", "3*a", fBin(fLit(3), "*", v("a"))},
		{pe + "Binary Operators › Parenthesis", "(16 - 4) - 8", fBin(fBin(fLit(16), "-", fLit(4)), "-", fLit(8))},
		{pe + "Binary Operators › Order of Operations", "14 + 6 >= 19 - 2", fBin(fBin(fLit(14), "+", fLit(6)), ">=", fBin(fLit(19), "-", fLit(2)))},
		{pe + "Parse Negated field", "!true", fNeg(fLit(true))},
		{pe + "Parse Negated field", "!14", fNeg(fLit(14))},
		{pe + "Parse Negated field", "!neat(0)", fNeg(fFunc(v("neat"), fLit(0)))},
		{pe + "Parse Negated field", "!!what", fNeg(fNeg(v("what")))},
		{pe + "Parse binaryop negated field", "!(true & false)", fNeg(fBin(fLit(true), "&", fLit(false)))},
		{pe + "Parse binaryop negated field", "true & !false", fBin(fLit(true), "&", fNeg(fLit(false)))},
		{pe + "Parse Various Fields", `list(a, "b", 3, [[4]])`, fFunc(v("list"), v("a"), fLit("b"), fLit(3), fLit(linkFile("4", false, "")))},
	} {
		if got := mustParse(t, testGrammar.field, c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q = %#v, want %#v", c.from, c.text, got, c.want)
		}
	}
	// String Literals › Parse Multiple Strings: "" or "yes" is a binary
	// operation of two literals.
	if got := mustParse(t, testGrammar.field, `"" or "yes"`); !reflect.DeepEqual(got, fBin(fLit(""), "|", fLit("yes"))) {
		t.Errorf(pe+"String Literals › Parse Multiple Strings: %#v", got)
	}
}

func TestPortedParseSources(t *testing.T) {
	const pe = "parse/parse.expression.test.ts › "
	folder := func(f string) source { return folderSource{f} }
	tag := func(t string) source { return tagSource{t} }
	neg := func(s source) source { return negSource{s} }
	bin := func(l source, op string, r source) source { return binSource{op, l, r} }
	for _, c := range []struct {
		from, text string
		want       source
	}{
		{pe + "Parse simple sources", `"hello"`, folder("hello")},
		{pe + "Parse simple sources", "#neat", tag("#neat")},
		{pe + "Parse simple sources", `csv("data/a.csv")`, csvSource{"data/a.csv"}},
		{pe + "Parse negated source", `-"hello"`, neg(folder("hello"))},
		{pe + "Parse negated source", `!"hello"`, neg(folder("hello"))},
		{pe + "Parse negated source", "-#neat", neg(tag("#neat"))},
		{pe + "Parse negated source", "!#neat", neg(tag("#neat"))},
		{pe + "Parse parens source", `("lma0")`, folder("lma0")},
		{pe + "Parse parens source", "(#neat0)", tag("#neat0")},
		{pe + "Parse binary source", `"lma0" or #neat`, bin(folder("lma0"), "|", tag("#neat"))},
		{pe + "Parse binary source", `"meme" & #dirty`, bin(folder("meme"), "&", tag("#dirty"))},
		{pe + "Parse negated parens source", "-(#neat)", neg(tag("#neat"))},
		{pe + "Parse negated parens source", "!(#neat)", neg(tag("#neat"))},
		{pe + "Parse negated parens source", `-("meme" & #dirty)`, neg(bin(folder("meme"), "&", tag("#dirty")))},
		{pe + "Parse negated parens source", `!("meme" & #dirty)`, neg(bin(folder("meme"), "&", tag("#dirty")))},
		{pe + "Parse negated parens source", `-"meme" & #dirty`, bin(neg(folder("meme")), "&", tag("#dirty"))},
		{pe + "Parse negated parens source", `!"meme" & #dirty`, bin(neg(folder("meme")), "&", tag("#dirty"))},
	} {
		if got := mustParse(t, testGrammar.source, c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q = %#v, want %#v", c.from, c.text, got, c.want)
		}
	}
}
