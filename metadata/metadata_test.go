package metadata

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const sample = "---\r\n" +
	"title: Garden\r\n" +
	"tags: [plants, '#Home/Garden']\r\n" +
	"aliases: Yard, Backyard\r\n" +
	"count: 3\r\n" +
	"ratio: 0.5\r\n" +
	"done: true\r\n" +
	"due: 2026-11-23\r\n" +
	"at: 2026-11-23T10:00:00\r\n" +
	"none:\r\n" +
	"nested: {a: 1}\r\n" +
	"---\r\n" +
	"# Plan\r\n" +
	"Intro #todo and #123 and a#not and `#code` here. ^intro\r\n" +
	"## Risks\r\n" +
	"- frost [[Weather#Frost|cold]] #risk/weather\r\n" +
	"```\r\n" +
	"# not a heading #nottag [[NotLink]]\r\n" +
	"```\r\n" +
	"### Deep ###\r\n" +
	"## Budget\r\n" +
	"See [budget](Money/Budget.md) and ![[chart.png]].\r\n" +
	"# Archive\r\n" +
	"## Risks\r\n" +
	"old\r\n"

func TestParse(t *testing.T) {
	t.Parallel()
	n := Parse([]byte(sample))
	if n.FrontmatterError != "" {
		t.Fatalf("frontmatter error: %s", n.FrontmatterError)
	}
	props, _ := json.Marshal(n.Properties)
	wantProps := `[{"key":"title","type":"text","value":"Garden"},{"key":"tags","type":"list","value":["plants","#Home/Garden"]},` +
		`{"key":"aliases","type":"text","value":"Yard, Backyard"},{"key":"count","type":"number","value":3},{"key":"ratio","type":"number","value":0.5},` +
		`{"key":"done","type":"checkbox","value":true},{"key":"due","type":"date","value":"2026-11-23"},{"key":"at","type":"datetime","value":"2026-11-23T10:00:00"},` +
		`{"key":"none","type":"null","value":null},{"key":"nested","type":"object","value":{"a":1}}]`
	if string(props) != wantProps {
		t.Errorf("properties\n got %s\nwant %s", props, wantProps)
	}
	if n.BodyLine != 13 || n.Lines != 25 {
		t.Errorf("body line %d, lines %d; want 13, 25", n.BodyLine, n.Lines)
	}
	wantHeadings := []Heading{
		{1, "Plan", 13, 22}, {2, "Risks", 15, 20}, {3, "Deep", 20, 20}, {2, "Budget", 21, 22}, {1, "Archive", 23, 25}, {2, "Risks", 24, 25},
	}
	if !reflect.DeepEqual(n.Headings, wantHeadings) {
		t.Errorf("headings\n got %+v\nwant %+v", n.Headings, wantHeadings)
	}
	if want := []Block{{"intro", 14}}; !reflect.DeepEqual(n.Blocks, want) {
		t.Errorf("blocks = %+v, want %+v", n.Blocks, want)
	}
	wantTags := []Tag{{"plants", 0}, {"Home/Garden", 0}, {"todo", 14}, {"risk/weather", 16}}
	if !reflect.DeepEqual(n.Tags, wantTags) {
		t.Errorf("tags\n got %+v\nwant %+v", n.Tags, wantTags)
	}
	if want := []string{"Yard", "Backyard"}; !reflect.DeepEqual(n.Aliases, want) {
		t.Errorf("aliases = %q, want %q", n.Aliases, want)
	}
	wantLinks := []Link{
		{Target: "Weather", Subpath: "#Frost", Line: 16},
		{Target: "Money/Budget.md", Line: 22, Markdown: true},
		{Target: "chart.png", Line: 22, Embed: true},
	}
	if !reflect.DeepEqual(n.Links, wantLinks) {
		t.Errorf("links\n got %+v\nwant %+v", n.Links, wantLinks)
	}
}

func TestFindSection(t *testing.T) {
	t.Parallel()
	n := Parse([]byte(sample))
	cases := []struct {
		path  string
		want  int
		cands []string
	}{
		{"Plan > Risks", 1, nil},
		{"plan>risks", 1, nil},
		{"Archive > Risks", 5, nil},
		{"Plan > Deep", 2, nil}, // any depth
		{"Budget", 3, nil},
		{"## Budget", 3, nil},
		{"Risks", -1, []string{"Plan > Risks (line 15)", "Archive > Risks (line 24)"}},
		{"Nowhere", -1, []string{}},
		{"Archive > Budget", -1, []string{}},
	}
	for _, c := range cases {
		got, cands := n.FindSection(c.path)
		if got != c.want || (c.want < 0 && !reflect.DeepEqual(cands, c.cands)) {
			t.Errorf("FindSection(%q) = %d %q, want %d %q", c.path, got, cands, c.want, c.cands)
		}
	}
	if got := n.HeadingPath(2); got != "Plan > Risks > Deep" {
		t.Errorf("HeadingPath(2) = %q", got)
	}
}

func TestFrontmatterEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		tags       []string
		err        bool
		keys       int
	}{
		{"no frontmatter", "# T\n#a", []string{"a"}, false, 0},
		{"empty", "---\n---\nx", nil, false, 0},
		{"broken yaml", "---\ntags: [a\n---\n#b", []string{"b"}, true, 0},
		{"not a mapping", "---\n- a\n---\n", nil, true, 0},
		{"tag string", "---\ntags: \"a, #b c\"\n---\n", []string{"a", "b", "c"}, false, 1},
		{"tag key", "---\ntag: x\n---\n", []string{"x"}, false, 1},
		{"alias cycle", "---\na: &x [*x]\n---\n", nil, false, 1},
		{"unclosed is text", "---\ntags: a\n", nil, false, 0},
		{"tag at line start and after tab", "#one\tx\t#two", []string{"one", "two"}, false, 0},
		{"url anchor is not a tag", "see http://x.y/#frag and (#paren)", nil, false, 0},
		{"escaped", `\#not`, nil, false, 0},
		{"unicode tag", "#café #日本語", []string{"café", "日本語"}, false, 0},
		{"tag ends at punctuation", "#done, #next.", []string{"done", "next"}, false, 0},
	}
	for _, c := range cases {
		n := Parse([]byte(c.text))
		var tags []string
		for _, tg := range n.Tags {
			tags = append(tags, tg.Name)
		}
		if !reflect.DeepEqual(tags, c.tags) || (n.FrontmatterError != "") != c.err || len(n.Properties) != c.keys {
			t.Errorf("%s: tags %q err %q keys %d; want %q err=%v keys %d", c.name, tags, n.FrontmatterError, len(n.Properties), c.tags, c.err, c.keys)
		}
	}
}

// TestFindSectionWithAngleBracket: a heading whose text holds '>' is found
// by its text or its full path, and a path that names two headings (one
// split, one whole) is refused, never resolved to the wrong one.
func TestFindSectionWithAngleBracket(t *testing.T) {
	n := Parse([]byte("# Plan\n## A > B\n# A\n## B\n#\n##\n# >\n"))
	for q, want := range map[string]string{"Plan > A > B": "Plan > A > B"} {
		if i, c := n.FindSection(q); i < 0 || n.HeadingPath(i) != want {
			t.Errorf("FindSection(%q) = %d %q", q, i, c)
		}
	}
	for _, q := range []string{"A > B", ">"} {
		if i, c := n.FindSection(q); i >= 0 || len(c) != 2 {
			t.Errorf("FindSection(%q) = %d %q; want two candidates", q, i, c)
		}
	}
}

// TestTagsReadBackAsThemselves: a tag read from the tags property, written
// back as a list, reads as the same tag: the names lose all their leading
// '#' and '/' at once ("/#" read as "#", which read as no tag).
func TestTagsReadBackAsThemselves(t *testing.T) {
	for value, want := range map[string]string{"/#": "", "/#a": "a", "#/a/": "a", "##a//": "a", "a/b": "a/b", "#": ""} {
		n := Parse([]byte("---\ntags: '" + value + "'\n---\n"))
		var got []string
		for _, tg := range n.Tags {
			got = append(got, tg.Name)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("tags %q read as %q, want %q", value, got, want)
		}
		for _, name := range got {
			back := Parse([]byte("---\ntags:\n  - '" + name + "'\n---\n"))
			if len(back.Tags) != 1 || back.Tags[0].Name != name {
				t.Errorf("tag %q, written, reads as %+v", name, back.Tags)
			}
		}
	}
}
