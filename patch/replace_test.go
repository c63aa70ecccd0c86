package patch

import (
	"slices"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestReplaceText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, find, repl string
		regex, all                bool
		want                      string
		lines                     []int
		field                     string // the field an error names
	}{
		{name: "once", content: "a cat\nsat\n", find: "cat", repl: "dog", want: "a dog\nsat\n", lines: []int{1}},
		{name: "twice refused", content: "cat\ncat\n", find: "cat", repl: "dog", field: "all"},
		{name: "all", content: "cat\nx cat\n", find: "cat", repl: "dog", all: true, want: "dog\nx dog\n", lines: []int{1, 2}},
		{name: "missing", content: "a", find: "b", field: "find"},
		{name: "empty find", content: "a", find: "", field: "find"},
		{name: "exact text is not a pattern", content: "a.b axb", find: "a.b", repl: "$1", want: "$1 axb", lines: []int{1}},
		{name: "regex groups", content: "- [ ] a\n- [ ] b\n", find: `(?m)^- \[ \] (\w)$`, repl: "- [x] ${1}!", regex: true, all: true,
			want: "- [x] a!\n- [x] b!\n", lines: []int{1, 2}},
		{name: "bad regex", content: "a", find: "(", regex: true, field: "find"},
		{name: "LF text in a CRLF note", content: "one\r\ntwo\r\nthree", find: "one\ntwo", repl: "1\n2", want: "1\r\n2\r\nthree", lines: []int{1}},
		{name: "backslashes and LaTeX kept", content: `$\frac{a}{b}$ and C:\dir`, find: `\frac{a}{b}`, repl: `\dfrac{a}{b}`, want: `$\dfrac{a}{b}$ and C:\dir`, lines: []int{1}},
		{name: "delete", content: "keep DROP keep", find: " DROP", want: "keep keep", lines: []int{1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ReplaceText([]byte(tc.content), tc.find, tc.repl, tc.regex, tc.all)
			if tc.field != "" {
				e := errors.From(err)
				if e == nil || e.Kind != errors.InvalidParams || len(e.Fields) != 1 || e.Fields[0].Field != tc.field {
					t.Fatalf("err = %v, want INVALID_PARAMS naming %s", err, tc.field)
				}
				return
			}
			if err != nil || string(r.Content) != tc.want || !slices.Equal(r.Lines, tc.lines) {
				t.Errorf("got %q lines %v, %v; want %q lines %v", r.Content, r.Lines, err, tc.want, tc.lines)
			}
		})
	}
}

// TestReplaceIn: a replace across notes leaves fenced code and the
// frontmatter alone unless asked, and says which lines it changed.
func TestReplaceIn(t *testing.T) {
	t.Parallel()
	text := "---\ntitle: old\n---\nold text\n```\nold code\n```\nmore old\n"
	for _, c := range []struct {
		name  string
		s     Scope
		want  string
		lines []int
	}{
		{"body only", Scope{}, "---\ntitle: old\n---\nnew text\n```\nold code\n```\nmore new\n", []int{4, 8}},
		{"code too", Scope{Code: true}, "---\ntitle: old\n---\nnew text\n```\nnew code\n```\nmore new\n", []int{4, 6, 8}},
		{"frontmatter too", Scope{Frontmatter: true}, "---\ntitle: new\n---\nnew text\n```\nold code\n```\nmore new\n", []int{2, 4, 8}},
	} {
		re, err := Pattern("old", false)
		if err != nil {
			t.Fatal(err)
		}
		r := ReplaceIn([]byte(text), re, "new", false, c.s)
		if string(r.Content) != c.want || !slices.Equal(r.Lines, c.lines) {
			t.Errorf("%s: %q %v, want %q %v", c.name, r.Content, r.Lines, c.want, c.lines)
		}
	}
	re, _ := Pattern(`(\w+)@example\.com`, true)
	if r := ReplaceIn([]byte("mail ann@example.com\n"), re, "$1@example.org", true, Scope{}); string(r.Content) != "mail ann@example.org\n" {
		t.Errorf("regex with a group: %q", r.Content)
	}
	if r := ReplaceIn([]byte("nothing here\n"), re, "x", true, Scope{}); r.Lines != nil || string(r.Content) != "nothing here\n" {
		t.Errorf("no match: %+v", r)
	}
	if _, err := Pattern("(", true); err == nil || !strings.Contains(err.Error(), "find") {
		t.Errorf("a bad pattern: %v", err)
	}
}
