package dataview

import (
	"reflect"
	"testing"
)

// TestFindWikilinks: the hand-written scanner finds what the regular
// expression it replaces finds, on lines made to trip it.
func TestFindWikilinks(t *testing.T) {
	for _, line := range []string{
		"", "[[a]]", "![[a]]", "x ![[a|b]] y [[c#d]]", "[[a [[b]]", "[[a]]]]", "[[[a]]", "!![[a]]", "[[a]]![[b]]",
		"[[]]", "[[a] b]]", "[[a\\]]", "![[", "[[a]", "text [[x|y]] and [[z]] and ![[w.png]]!",
		"[[a]]![[b]] ![[c]]", "!x[[a]]", "[[a]]!", "日本[[語]]",
	} {
		want := wikiRe.FindAllStringSubmatchIndex(line, -1)
		if got := findWikilinks(line); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}

func FuzzFindWikilinks(f *testing.F) {
	f.Add("x ![[a|b]] y [[c#d]] [[a [[b]] !![[c]]")
	f.Fuzz(func(t *testing.T, line string) {
		want := wikiRe.FindAllStringSubmatchIndex(line, -1)
		if got := findWikilinks(line); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	})
}
