package tools

import "testing"

// TestRender: a result's text block is its data as YAML, in field order:
// one line per field, one line per entry of a list of flat entries, a
// note's lines as lines, and quotes only where a value would read as
// something else.
func TestRender(t *testing.T) {
	t.Parallel()
	type match struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	type hit struct {
		Path    string  `json:"path"`
		Score   float64 `json:"score"`
		Matches []match `json:"matches"`
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"a write", struct {
			Path  string `json:"path"`
			Bytes int    `json:"bytes"`
		}{"Inbox/Idea.md", 6}, "path: Inbox/Idea.md\nbytes: 6"},
		{"a page of results", struct {
			Results    []hit  `json:"results"`
			Total      int    `json:"total"`
			NextCursor string `json:"next_cursor,omitempty"`
		}{[]hit{{"Notes/Seed.md", 3.25, []match{{6, "See <mark>#garden</mark> [[Idea]]"}}}}, 1, "eyJvIjoyMH0="},
			"results:\n  - path: Notes/Seed.md\n    score: 3.25\n    matches:\n      - {line: 6, text: 'See <mark>#garden</mark> [[Idea]]'}\ntotal: 1\nnext_cursor: eyJvIjoyMH0="},
		{"note content", struct {
			Content string `json:"content"`
			ETag    string `json:"etag"`
		}{"---\ntags: [a]\n---\n# Title\n\n- item: x\n", "0123"},
			"content: |\n  ---\n  tags: [a]\n  ---\n  # Title\n\n  - item: x\netag: \"0123\""},
		{"a list of names", struct {
			Tags []string `json:"tags"`
		}{[]string{"project", "area/home"}}, "tags: [project, area/home]"},
		{"values that need quotes", struct {
			A string   `json:"a"`
			B string   `json:"b"`
			C string   `json:"c"`
			D string   `json:"d"`
			E []string `json:"e"`
		}{"true", "a: b", " lead", "tab\there", []string{}},
			"a: \"true\"\nb: 'a: b'\nc: ' lead'\nd: \"tab\\there\"\ne: []"},
	}
	for _, c := range cases {
		got, err := render(c.v)
		if err != nil || got != c.want {
			t.Errorf("%s: render =\n%s\n(%v)\nwant\n%s", c.name, got, err, c.want)
		}
	}
}
