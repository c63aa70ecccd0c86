package dataview

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"
)

// Ported from Dataview's src/test/markdown/parse.file.test.ts,
// src/test/util/normalize.test.ts, src/test/util/paths.test.ts,
// src/test/data/values.test.ts and src/test/data/index-map.test.ts.

func TestPortedParseFile(t *testing.T) {
	const pf = "markdown/parse.file.test.ts › "
	for _, c := range []struct {
		from string
		fm   *Object
		want []string
	}{
		{pf + "Frontmatter Tags › Empty", O(), nil},
		{pf + "Frontmatter Tags › No Tags", O("a", 1, "b", 2), nil},
		{pf + "Frontmatter Tags › One Tag", O("tag", "hello"), []string{"#hello"}},
		{pf + "Frontmatter Tags › Two Tag", O("tag", L("hello", "goodbye")), []string{"#hello", "#goodbye"}},
		{pf + "Frontmatter Tags › Two Tag String", O("tag", "hello goodbye"), []string{"#hello", "#goodbye"}},
		{pf + "Frontmatter Tags › Two Tag String Comma", O("tag", "hello, goodbye"), []string{"#hello", "#goodbye"}},
	} {
		if got := extractTags(c.fm); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.from, got, c.want)
		}
	}
	for _, c := range []struct {
		from, text string
		want       []string
	}{
		{pf + "Task Tags › Empty", "hello", nil},
		{pf + "Task Tags › One Tag", "and text #hello", []string{"#hello"}},
		{pf + "Task Tags › Two Tags", "#and/thing text #hello", []string{"#and/thing", "#hello"}},
		{pf + "Task Tags › Comma Delimited", "#one,#two, #three", []string{"#one", "#two", "#three"}},
		{pf + "Task Tags › Semicolon Delimited", "#one;;;#two; #three", []string{"#one", "#two", "#three"}},
		{pf + "Task Tags › Parenthesis", "[#one]]#two;;#four()() #three", []string{"#one", "#two", "#four", "#three"}},
	} {
		if got := testGrammar.itemTags(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q = %v, want %v", c.from, c.text, got, c.want)
		}
	}
}

func TestPortedNormalize(t *testing.T) {
	const nz = "util/normalize.test.ts › "
	for in, want := range map[string]string{
		"Header  [[Outer Wilds]]  ":       "Header Outer Wilds",
		"Header - More":                   "Header - More",
		"Header _ More _":                 "Header _ More _",
		"Header  [[Outer Wilds|Thing]]  ": "Header Outer Wilds Thing",
		"**Header** *Value":               "Header Value",
		"Header   📷 [[Outer Wilds]]  ":    "Header 📷 Outer Wilds",
	} {
		if got := normalizeHeaderForLink(in); got != want {
			t.Errorf(nz+"Header Normalization: %q = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"test": "test", "property": "property", "test thing": "test-thing", "This     is test": "this-is-test",
		"test thing 3": "test-thing-3", "This is a Test.": "this-is-a-test", "Yes-sir": "yes-sir", "📷": "📷", "Статус": "статус",
	} {
		if got := canonicalVarName(in); got != want {
			t.Errorf(nz+"Variable Canonicalization: %q = %q, want %q", in, got, want)
		}
	}
	const pa = "util/paths.test.ts › "
	for in, want := range map[string]string{"": "", "yes.md": "yes", "yes": "yes", "ok/yes.md": "yes", "/yes": "yes"} {
		if got := fileTitle(in); got != want {
			t.Errorf(pa+"getFileTitle(): %q = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"": "", "yes": "", "maybe": "", "ok/yes": "ok", "no/maybe": "no", "/maybe": "",
		"a/b/c.md": "a/b", "hello/yes/no/maybe.md": "hello/yes/no", "hello/yes/no/": "hello/yes/no",
	} {
		if got := parentFolder(in); got != want {
			t.Errorf(pa+"getParentFolder(): %q = %q, want %q", in, got, want)
		}
	}
}

func TestPortedValues(t *testing.T) {
	const va = "data/values.test.ts › Links › "
	file := func(p string) *Link { return FileLink(p) }
	header := func(p, h string) *Link { return &Link{Path: p, Subpath: h, Type: "header"} }
	block := func(p, b string) *Link { return &Link{Path: p, Subpath: b, Type: "block"} }
	if !file("test").equals(file("test")) || file("test").equals(file("test2")) ||
		file("test").equals(header("test", "Hello")) || header("test", "abc").equals(block("test", "abc")) {
		t.Errorf(va + "Comparisons")
	}
	if compareValues(file("test"), file("test"), nil) != 0 || compareValues(file("test"), file("test2"), nil) >= 0 ||
		compareValues(file("test"), header("test", "Hello"), nil) >= 0 || compareValues(header("test", "abc"), block("test", "abc"), nil) == 0 {
		t.Errorf(va + "General Comparisons")
	}
}

// TestPortedIndexMap is data/index-map.test.ts's IndexMap (a page's link
// targets, and the pages linking to each target) as this engine keeps it:
// in the vault, read back through FROM [[target]].
func TestPortedIndexMap(t *testing.T) {
	const im = "data/index-map.test.ts › "
	v := NewVault(Options{Location: fixedNow.Location(), Now: func() time.Time { return fixedNow }})
	put := func(name string, targets ...string) {
		text := ""
		for _, x := range targets {
			text += "[[" + x + "]]\n"
		}
		v.Put(name+".md", text, FileStat{})
	}
	inverse := func(target string) []string {
		r, err := v.Query(context.Background(), "LIST FROM [["+target+"]]", "", Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range r.Values.([]any) {
			out = append(out, fileTitle(x.(*Link).Path))
		}
		slices.Sort(out)
		return out
	}
	put("test", "a", "b", "c")
	put("test2", "a", "c")
	put("test3")
	for target, want := range map[string][]string{"a": {"test", "test2"}, "b": {"test"}, "c": {"test", "test2"}} {
		if got := inverse(target); !reflect.DeepEqual(got, want) {
			t.Errorf(im+"Inverted Get: %s ← %v, want %v", target, got, want)
		}
	}
	put("test", "a", "c")
	for target, want := range map[string][]string{"a": {"test", "test2"}, "b": nil, "c": {"test", "test2"}} {
		if got := inverse(target); !reflect.DeepEqual(got, want) {
			t.Errorf(im+"Inverted Get, after a change: %s ← %v, want %v", target, got, want)
		}
	}
	put("test")
	for target, want := range map[string][]string{"a": {"test2"}, "c": {"test2"}} {
		if got := inverse(target); !reflect.DeepEqual(got, want) {
			t.Errorf(im+"Inverted Get, after emptying: %s ← %v, want %v", target, got, want)
		}
	}
}
