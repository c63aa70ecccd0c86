package dataview

import (
	"reflect"
	"testing"
)

// Ported from Dataview's src/test/parse/parse.inline.test.ts.

func TestPortedInlineValues(t *testing.T) {
	const pi = "parse/parse.inline.test.ts › "
	for _, c := range []struct {
		from, text string
		want       any
	}{
		{pi + "Parse commas inside inline field", "[[yes, no, and maybe]]", linkFile("yes, no, and maybe", false, "")},
		{pi + "Inline Field Values › Parse basic inline fields", "14", 14.0},
		{pi + "Inline Field Values › Parse basic inline fields", `"yes,"`, "yes,"},
		{pi + "Inline Field Values › Parse basic inline fields", "[[test]]", linkFile("test", false, "")},
		{pi + "Inline Field Values › Parse inline field lists", "[[test]],", L(linkFile("test", false, ""))},
		{pi + "Inline Field Values › Parse inline field lists", "[[test]], [[test2]]", L(linkFile("test", false, ""), linkFile("test2", false, ""))},
		{pi + "Inline Field Values › Parse inline field lists", `1, 2, 3, "hello"`, L(1, 2, 3, "hello")},
		{pi + "Inline Field Values › Parse inline booleans", "true", true},
		{pi + "Inline Field Values › Parse inline booleans", "False", false},
	} {
		if got := mustParse(t, testGrammar.inlineField, c.text); !equal(got, c.want) {
			t.Errorf("%s: %q = %#v, want %#v", c.from, c.text, got, c.want)
		}
	}
}

func TestPortedInlineFields(t *testing.T) {
	const pi = "parse/parse.inline.test.ts › "
	for _, c := range []struct {
		from, line string
		want       []inlineField
	}{
		{pi + "Simple Inline Inline › Empty", "", nil},
		{pi + "Simple Inline Inline › Empty Brackets", "[]", nil},
		{pi + "Simple Inline Inline › Empty Parenthesis", "()", nil},
		{pi + "Simple Inline Inline › Incorrect Brackets", "[key:value]", nil},
		{pi + "Simple Inline Inline › Incorrect Parenthesis", "(key:value)", nil},
		{pi + "Simple Inline Inline › Trivial Brackets", "[key::value]", []inlineField{{key: "key", value: "value", start: 0, startValue: 6, end: 12, wrapping: "["}}},
		{pi + "Simple Inline Inline › Trivial Parenthesis", "(key::value)", []inlineField{{key: "key", value: "value", start: 0, startValue: 6, end: 12, wrapping: "("}}},
		{pi + "Simple Inline Inline › Two Inline Fields", "[key:: value] and so thus, [key2:: value2]", []inlineField{
			{key: "key", value: "value", start: 0, startValue: 6, end: 13, wrapping: "["},
			{key: "key2", value: "value2", start: 27, startValue: 34, end: 42, wrapping: "["},
		}},
	} {
		if got := extractInlineFields(c.line, false); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q = %+v, want %+v", c.from, c.line, got, c.want)
		}
	}
	for _, c := range []struct {
		from, line string
		task       bool
		key, value string
	}{
		{pi + "Inline Inline Edge Cases › Nested Brackets", "[[[[hello:: 16]]", false, "hello", "16"},
		{pi + "Inline Inline Edge Cases › Brackets In Value", "This is some text. [key:: [value]]", false, "key", "[value]"},
		{pi + "Inline Inline Edge Cases › Escaped Brackets", `Hello? [key! :: \[value]`, false, "key!", `\[value`},
		{pi + "Inline Inline Edge Cases › Large Leading Whitespace", "      - [ ] Huh! [p:: 1]", false, "p", "1"},
		{pi + "Inline Inline With HTML › Link", `[link:: <a href="Page">Value</a>]`, false, "link", `<a href="Page">Value</a>`},
		{pi + "Inline task emoji shorthands › Due emoji shorthand", "- [ ] testTask 🗓️2022-07-14", true, "due", "2022-07-14"},
		{pi + "Inline task emoji shorthands › Due emoji shorthand", "- [ ] testTask 🗓2022-07-14", true, "due", "2022-07-14"},
		{pi + "Inline task emoji shorthands › Created emoji shorthand", " - [ ] testTask \u27952022-07-25", true, "created", "2022-07-25"},
		{pi + "Inline task emoji shorthands › Start date emoji shorthand", " - [ ] testTask 🛫2022-07-21", true, "start", "2022-07-21"},
		{pi + "Inline task emoji shorthands › Scheduled date emoji shorthand", " - [ ] testTask ⏳2022-07-24", true, "scheduled", "2022-07-24"},
	} {
		got := extractInlineFields(c.line, c.task)
		if len(got) == 0 || got[0].key != c.key || got[0].value != c.value {
			t.Errorf("%s: %q = %+v, want %s = %s", c.from, c.line, got, c.key, c.value)
		}
	}
}
