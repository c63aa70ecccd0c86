package jsregex

import (
	"errors"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	for _, c := range []struct {
		pattern, flags, text string
		match                bool
	}{
		{`\w+`, "", "m3me", true},
		{`^a.c$`, "s", "a\nc", true},
		{`ABC`, "i", "xabcx", true},
		{`(?<year>\d{4})`, "", "in 2026", true},
		{`[(?=x)]`, "", "=", true}, // inside a class, (?= is three characters
		{`\(?!`, "", "(!", true},
	} {
		re, err := Compile(c.pattern, c.flags)
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if re.MatchString(c.text) != c.match {
			t.Errorf("/%s/%s on %q: %v", c.pattern, c.flags, c.text, !c.match)
		}
	}
	for _, c := range []struct{ pattern, says string }{
		{`(?<=a)b`, "look-behind"},
		{`(?<!a)b`, "negative look-behind"},
		{`a(?=b)`, "look-ahead"},
		{`a(?!b)`, "negative look-ahead"},
		{`(a)\1`, "back-reference"},
		{`(?<x>a)\k<x>`, "named back-reference"},
	} {
		_, err := Compile(c.pattern, "")
		var u *Unsupported
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want it refused naming %q", c.pattern, err, c.says)
		}
	}
	if _, err := Compile("a[", ""); err == nil || !strings.Contains(err.Error(), "is not valid") {
		t.Errorf("a[: %v", err)
	}
	if _, err := Compile(strings.Repeat("a", MaxLen+1), ""); err == nil {
		t.Error("a pattern over the bound was compiled")
	}
}

func TestTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"$1x":      "${1}x",
		"$<name>!": "${name}!",
		"$$":       "$$",
		"$&-$&":    "${0}-${0}",
		"cost $":   "cost $",
		"a $ b":    "a $$ b",
		"$12":      "${12}",
	} {
		if got := Template(in); got != want {
			t.Errorf("Template(%q) = %q, want %q", in, got, want)
		}
	}
}
