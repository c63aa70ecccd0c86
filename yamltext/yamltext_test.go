package yamltext

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestScalars: each form is taken where the string needs it, and each
// reads back (yaml.v3) as the string. tools' TestRenderReadsBackAsTheData
// and FuzzRender check the same over every shape of answer.
func TestScalars(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"Inbox/Idea.md", "Inbox/Idea.md"},
		{"Buy 🍎 apples 📅", "Buy 🍎 apples 📅"},
		{"ノート and 笔记", "ノート and 笔记"},
		{"yes", "yes"},
		{"true", `"true"`},
		{"0123", `"0123"`},
		{"2026-01-25", `"2026-01-25"`},
		{"a: b", "'a: b'"},
		{" lead", "' lead'"},
		{"it's #1", "'it''s #1'"},
		{"- x", "'- x'"},
		{"tab\there", `"tab\there"`},
		{"bell\a", `"bell\x07"`},
		{"\u2028", `"\u2028"`},
		{"", `""`},
	}
	for _, c := range cases {
		got := String(c.in, false)
		if got != c.want {
			t.Errorf("String(%q) = %s, want %s", c.in, got, c.want)
		}
		var back string
		if err := yaml.Unmarshal([]byte("k: "+got), &struct {
			K *string `yaml:"k"`
		}{&back}); err != nil || back != c.in {
			t.Errorf("%s reads back as %q (%v), want %q", got, back, err, c.in)
		}
	}
	if got := PropertyKey("0"); got != "0" {
		t.Errorf("PropertyKey(0) = %s: a key is read as its text", got)
	}
	if got, ok := Literal("one 🌱\n\ttwo\n", 2); !ok || got != " |\n  one 🌱\n  \ttwo\n" {
		t.Errorf("Literal = %q, %v", got, ok)
	}
	if _, ok := Literal("a\rb\n", 2); ok {
		t.Error("a lone carriage return cannot stand in a block")
	}
}
