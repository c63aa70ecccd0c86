package links

import "testing"

// TestHeadingRename: every form of link to the renamed heading follows it,
// and nothing else changes.
func TestHeadingRename(t *testing.T) {
	files := NewIndex([]string{"Plan.md", "Other.md", "Sub/Plan.md", "Notes/A.md"})
	outline := []Heading{{1, "Plan"}, {2, "Risks"}, {2, "Team"}, {3, "Risks"}, {1, "Old Heading"}}
	h := &HeadingRename{Target: "Plan.md", Outline: outline, Index: 1, New: "Dangers & doubts", Files: files}
	cases := []struct{ source, in, want string }{
		{"Notes/A.md", "[[Plan#Risks]]", "[[Plan#Dangers & doubts]]"},
		{"Notes/A.md", "[[Plan#risks|the risks]] and ![[Plan#Risks]]", "[[Plan#Dangers & doubts|the risks]] and ![[Plan#Dangers & doubts]]"},
		{"Notes/A.md", "[[Plan#Plan#Risks]]", "[[Plan#Plan#Dangers & doubts]]"},
		{"Notes/A.md", "[[Plan#Team#Risks]]", "[[Plan#Team#Risks]]"}, // the other Risks, under Team
		{"Notes/A.md", "[x](Plan.md#Risks) [y](../Plan.md#Risks)", "[x](Plan.md#Dangers%20&%20doubts) [y](../Plan.md#Dangers%20&%20doubts)"},
		{"Notes/A.md", "[x](<Plan.md#Risks>)", "[x](<Plan.md#Dangers & doubts>)"},
		{"Notes/A.md", "[[Other#Risks]] [[Plan#Team]] [[Plan#^risks]] `[[Plan#Risks]]`", "[[Other#Risks]] [[Plan#Team]] [[Plan#^risks]] `[[Plan#Risks]]`"},
		{"Plan.md", "see [[#Risks]] and [here](#Risks)", "see [[#Dangers & doubts]] and [here](#Dangers%20&%20doubts)"},
		{"Other.md", "[[#Risks]]", "[[#Risks]]"},                   // its own heading, not the plan's
		{"Notes/A.md", "[[Sub/Plan#Risks]]", "[[Sub/Plan#Risks]]"}, // another note of the name
	}
	for _, c := range cases {
		got, n := h.Rewrite([]byte(c.in), c.source)
		if string(got) != c.want {
			t.Errorf("%s: %q\n got %q\nwant %q", c.source, c.in, got, c.want)
		}
		if (n > 0) != (c.in != c.want) {
			t.Errorf("%s: %q: n = %d", c.source, c.in, n)
		}
	}
	// A parent renamed: links through it follow, to it and under it.
	h = &HeadingRename{Target: "Plan.md", Outline: outline, Index: 0, New: "Roadmap", Files: files}
	if got, _ := h.Rewrite([]byte("[[Plan#Plan]] [[Plan#Plan#Risks]] [[Plan#Risks]]"), "Other.md"); string(got) != "[[Plan#Roadmap]] [[Plan#Roadmap#Risks]] [[Plan#Risks]]" {
		t.Errorf("parent: %s", got)
	}
	// Wikilinks cannot hold # | ^ [ ]: they become spaces.
	h = &HeadingRename{Target: "Plan.md", Outline: outline, Index: 4, New: "A #1 [draft] | b", Files: files}
	if got, _ := h.Rewrite([]byte("[[Plan#Old Heading]] [[Plan#old-heading]]"), "Other.md"); string(got) != "[[Plan#A 1 draft b]] [[Plan#A 1 draft b]]" {
		t.Errorf("special characters: %s", got)
	}
}
