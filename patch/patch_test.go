package patch

import (
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

const plan = "---\ntags: [a]\n---\n# Plan\nintro\n\n## Risks\n- frost ^r1\n- pests\n\n### Deep\nroots\n\n## Budget\nmoney\n# Archive\n## Risks\nold\n"

func TestApplyHeading(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, heading, op, text string
		create                           bool
		want                             string
		kind                             errors.Kind
	}{
		{name: "append inside stays above the subheading", content: plan, heading: "Plan > Risks", op: Append, text: "- drought",
			want: strings.Replace(plan, "- pests\n", "- pests\n- drought\n", 1)},
		{name: "prepend inside", content: plan, heading: "Plan > Risks", op: Prepend, text: "Known risks:",
			want: strings.Replace(plan, "## Risks\n- frost", "## Risks\nKnown risks:\n\n- frost", 1)},
		{name: "before", content: plan, heading: "Budget", op: Before, text: "## Team\nAna\n",
			want: strings.Replace(plan, "## Budget", "## Team\nAna\n## Budget", 1)},
		{name: "after the whole section", content: plan, heading: "Plan > Risks", op: After, text: "## Timeline",
			want: strings.Replace(plan, "roots\n\n## Budget", "roots\n\n## Timeline\n## Budget", 1)},
		{name: "replace keeps subsections and the blank line", content: plan, heading: "Plan > Risks", op: Replace, text: "- none",
			want: strings.Replace(plan, "- frost ^r1\n- pests\n\n### Deep", "- none\n\n### Deep", 1)},
		{name: "append to the last section without a final newline", content: "# A\ntext", heading: "A", op: Append, text: "more",
			want: "# A\ntext\n\nmore\n"},
		{name: "after at the end without a final newline", content: "# A\ntext", heading: "A", op: After, text: "# B",
			want: "# A\ntext\n# B\n"},
		{name: "CRLF note gets CRLF text", content: "# A\r\none\r\n# B\r\n", heading: "A", op: Append, text: "two\nthree",
			want: "# A\r\none\r\n\r\ntwo\r\nthree\r\n# B\r\n"},
		{name: "empty body", content: "# A\n# B\n", heading: "A", op: Append, text: "x", want: "# A\nx\n# B\n"},
		{name: "a paragraph appended under a callout is its own block", content: "# A\n> [!note]\n> body\n\n# B\n", heading: "A", op: Append, text: "after",
			want: "# A\n> [!note]\n> body\n\nafter\n\n# B\n"},
		{name: "a row appended to a section's table continues it", content: "# A\n| k | v |\n|---|---|\n| a | 1 |\n", heading: "A", op: Append, text: "| b | 2 |",
			want: "# A\n| k | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n"},
		{name: "code fence is not a heading", content: "# A\n```\n# B\n```\n", heading: "B", op: Append, text: "x", kind: errors.HeadingNotFound},
		{name: "ambiguous", content: plan, heading: "Risks", op: Append, text: "x", kind: errors.AmbiguousName},
		{name: "missing", content: plan, heading: "Plan > Team", op: Append, text: "x", kind: errors.HeadingNotFound},
		{name: "create under its parent", content: plan, heading: "Plan > Team", op: Append, text: "Ana", create: true,
			want: strings.Replace(plan, "money\n# Archive", "money\n## Team\nAna\n# Archive", 1)},
		{name: "create a chain at the end", content: "# Title\n## One\nx\n", heading: "Two > Sub", op: Append, text: "y", create: true,
			want: "# Title\n## One\nx\n## Two\n### Sub\ny\n"},
		{name: "create in an empty note", content: "", heading: "Log", op: Append, text: "first", create: true, want: "# Log\nfirst\n"},
		{name: "bad op", content: plan, heading: "Plan", op: "middle", text: "x", kind: errors.InvalidParams},
	}
	for _, c := range cases {
		r, err := Apply([]byte(c.content), Target{Heading: c.heading}, c.op, c.text, c.create)
		if c.kind != "" {
			if errors.From(err).Kind != c.kind {
				t.Errorf("%s: %v, want %s", c.name, err, c.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(r.Content) != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, r.Content, c.want)
		}
	}
}

func TestApplyBlock(t *testing.T) {
	t.Parallel()
	content := "# A\nfirst line\nsecond line ^p1\n\n- [ ] task one ^t1\n- two\n"
	cases := []struct{ op, text, want string }{
		{Append, "(done)", "# A\nfirst line\nsecond line (done) ^p1\n\n- [ ] task one ^t1\n- two\n"},
		{Prepend, "NB:", "# A\nNB: first line\nsecond line ^p1\n\n- [ ] task one ^t1\n- two\n"},
		{Replace, "one line", "# A\none line ^p1\n\n- [ ] task one ^t1\n- two\n"},
		{Before, "> quote", "# A\n> quote\n\nfirst line\nsecond line ^p1\n\n- [ ] task one ^t1\n- two\n"},
		{After, "after", "# A\nfirst line\nsecond line ^p1\n\nafter\n\n- [ ] task one ^t1\n- two\n"},
	}
	for _, c := range cases {
		r, err := Apply([]byte(content), Target{Block: "^p1"}, c.op, c.text, false)
		if err != nil || string(r.Content) != c.want {
			t.Errorf("%s: %v\n got %q\nwant %q", c.op, err, r.Content, c.want)
		}
	}
	for op, want := range map[string]string{
		Before: "# A\nfirst line\nsecond line ^p1\n\n- new\n- [ ] task one ^t1\n- two\n",
		After:  "# A\nfirst line\nsecond line ^p1\n\n- [ ] task one ^t1\n- new\n- two\n",
	} {
		// A list item next to a list item continues the list.
		r, err := Apply([]byte(content), Target{Block: "t1"}, op, "- new", false)
		if err != nil || string(r.Content) != want {
			t.Errorf("list item %s: %v\n got %q\nwant %q", op, err, r.Content, want)
		}
	}
	r, err := Apply([]byte(content), Target{Block: "t1"}, Replace, "task renamed", false)
	if want := "# A\nfirst line\nsecond line ^p1\n\n- [ ] task renamed ^t1\n- two\n"; err != nil || string(r.Content) != want {
		t.Errorf("list item: %v %q", err, r.Content)
	}
	if _, err := Apply([]byte(content), Target{Block: "nope"}, Append, "x", false); errors.From(err).Kind != errors.BlockNotFound {
		t.Errorf("missing block: %v", err)
	}
	if _, err := Apply([]byte("a ^x\nb ^x\n"), Target{Block: "x"}, Append, "y", false); errors.From(err).Kind != errors.AmbiguousName {
		t.Errorf("duplicate block: %v", err)
	}
}

// TestByteOrderMark: Obsidian reads a note without its byte order mark, so
// a first-line heading or frontmatter is found, and nothing goes before it.
func TestByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	fm := []byte(bom + "---\nstatus: a # kept\n---\n# T\nx\n")
	r, err := SetProperty(fm, "status", Text, "b")
	if err != nil || string(r.Content) != bom+"---\nstatus: b\n---\n# T\nx\n" {
		t.Errorf("set: %q, %v", r.Content, err)
	}
	r, err = SetProperty([]byte(bom+"# T\n"), "status", Text, "b")
	if err != nil || string(r.Content) != bom+"---\nstatus: b\n---\n# T\n" {
		t.Errorf("new frontmatter: %q, %v", r.Content, err)
	}
	r, removed, err := RemoveProperty(fm, "status")
	if err != nil || !removed || string(r.Content) != bom+"# T\nx\n" {
		t.Errorf("remove: %q, %v, %v", r.Content, removed, err)
	}
	r, err = Apply([]byte(bom+"# T\nx\n"), Target{Heading: "T"}, Before, "above", false)
	if err != nil || string(r.Content) != bom+"above\n# T\nx\n" || string(r.Content[r.Start:r.End]) != "above\n" {
		t.Errorf("before: %q [%d:%d], %v", r.Content, r.Start, r.End, err)
	}
}
