package patch

import (
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

const fm = "---\ntitle: \"Plan\" # keep me\ntags:\n  - a\n  - b\n\nstatus: doing\n---\nbody\n"

func TestSetProperty(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, key, typ string
		value                   any
		want                    string
		kind                    errors.Kind
	}{
		{"replace in place", fm, "status", Text, "done", "---\ntitle: \"Plan\" # keep me\ntags:\n  - a\n  - b\n\nstatus: done\n---\nbody\n", ""},
		{"list keeps the blank line after it", fm, "tags", List, []string{"x", "y z"}, "---\ntitle: \"Plan\" # keep me\ntags:\n  - x\n  - y z\n\nstatus: doing\n---\nbody\n", ""},
		{"new key at the end", fm, "due", Date, "2026-11-30", "---\ntitle: \"Plan\" # keep me\ntags:\n  - a\n  - b\n\nstatus: doing\ndue: 2026-11-30\n---\nbody\n", ""},
		{"number", fm, "count", Number, "3.5", "---\ntitle: \"Plan\" # keep me\ntags:\n  - a\n  - b\n\nstatus: doing\ncount: 3.5\n---\nbody\n", ""},
		{"checkbox", fm, "done", Checkbox, "true", "---\ntitle: \"Plan\" # keep me\ntags:\n  - a\n  - b\n\nstatus: doing\ndone: true\n---\nbody\n", ""},
		{"text that looks like a number is quoted", fm, "code", Text, "007", "---\ntitle: \"Plan\" # keep me\ntags:\n  - a\n  - b\n\nstatus: doing\ncode: \"007\"\n---\nbody\n", ""},
		{"no frontmatter", "# Note\n", "status", Text, "new", "---\nstatus: new\n---\n# Note\n", ""},
		{"CRLF", "---\r\na: 1\r\n---\r\nx", "b", Text, "two", "---\r\na: 1\r\nb: two\r\n---\r\nx", ""},
		// "0::" is the key "0:", not "0": setting "0" must not overwrite it.
		{"a key that ends in a colon is another key", "---\n0::\n---\n", "0", Text, "zero", "---\n0::\n0: zero\n---\n", ""},
		{"a quoted key holding \": \"", "---\n'a: b': 1\n---\n", "a", Text, "x", "---\n'a: b': 1\na: x\n---\n", ""},
		{"bad number", fm, "count", Number, "many", "", errors.InvalidParams},
		{"bad date", fm, "due", Date, "30/11/2026", "", errors.InvalidParams},
		{"bad checkbox", fm, "done", Checkbox, "yes", "", errors.InvalidParams},
		{"bad key", fm, "a: b", Text, "x", "", errors.InvalidParams},
		{"list needs a list", fm, "tags", List, "x", "", errors.InvalidParams},
	}
	for _, c := range cases {
		r, err := SetProperty([]byte(c.content), c.key, c.typ, c.value)
		if c.kind != "" {
			if errors.From(err).Kind != c.kind {
				t.Errorf("%s: %v, want %s", c.name, err, c.kind)
			}
			continue
		}
		if err != nil || string(r.Content) != c.want {
			t.Errorf("%s: %v\n got %q\nwant %q", c.name, err, r.Content, c.want)
		}
	}
}

func TestRemoveProperty(t *testing.T) {
	t.Parallel()
	r, removed, err := RemoveProperty([]byte(fm), "tags")
	if want := "---\ntitle: \"Plan\" # keep me\n\nstatus: doing\n---\nbody\n"; err != nil || !removed || string(r.Content) != want {
		t.Errorf("remove tags: %v %v %q", err, removed, r.Content)
	}
	r, removed, err = RemoveProperty([]byte(fm), "nope")
	if err != nil || removed || string(r.Content) != fm {
		t.Errorf("remove a missing key changed the note: %v %v %q", err, removed, r.Content)
	}
	// Adding a key and removing it gives the note back byte for byte.
	added, err := SetProperty([]byte(fm), "new", Text, "x")
	if err != nil {
		t.Fatal(err)
	}
	back, _, _ := RemoveProperty(added.Content, "new")
	if string(back.Content) != fm {
		t.Errorf("add then remove: %q", back.Content)
	}
}

// TestLongKeys: go-yaml writes keys over 128 bytes as "? key" complex
// keys, which no later edit would find; such a key is refused, and an
// existing long key written plainly can still be removed.
func TestLongKeys(t *testing.T) {
	long := strings.Repeat("k", maxKey+1)
	if _, err := SetProperty([]byte("x"), long, Text, "v"); err == nil {
		t.Error("a key longer than maxKey was set")
	}
	r, removed, err := RemoveProperty([]byte("---\n"+long+": v\na: 1\n---\n"), long)
	if err != nil || !removed || string(r.Content) != "---\na: 1\n---\n" {
		t.Errorf("remove = %q %v %v", r.Content, removed, err)
	}
}

// TestKeptTrailingLines: a value whose trailing newlines YAML keeps ("|+")
// owns the blank lines after it, so removing it removes them.
func TestKeptTrailingLines(t *testing.T) {
	orig := []byte("---\na: 1\n---\nbody")
	set, err := SetProperty(orig, "k", Text, "x\n\n")
	if err != nil || !strings.Contains(string(set.Content), "k: |+") {
		t.Fatalf("set = %q, %v", set.Content, err)
	}
	back, removed, err := RemoveProperty(set.Content, "k")
	if err != nil || !removed || string(back.Content) != string(orig) {
		t.Errorf("set then remove: %q, want %q (%v)", back.Content, orig, err)
	}
	// Blank lines after any other value stay with the next key.
	r, _, _ := RemoveProperty([]byte("---\nk: v\n\nb: 2\n---\n"), "k")
	if string(r.Content) != "---\n\nb: 2\n---\n" {
		t.Errorf("plain value: %q", r.Content)
	}
}

// TestKeyTwiceIsRefused: a frontmatter that holds a key twice is not
// edited through either: the other would go on saying the old value.
func TestKeyTwiceIsRefused(t *testing.T) {
	t.Parallel()
	in := []byte("---\nstatus: draft\nrank: 1\nstatus: done\n---\nbody\n")
	if _, err := SetProperty(in, "status", Text, "final"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("set: %v, want a refusal naming the key twice", err)
	}
	if _, _, err := RemoveProperty(in, "status"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("remove: %v, want a refusal naming the key twice", err)
	}
	if r, err := SetProperty(in, "rank", Number, "2"); err != nil || !strings.Contains(string(r.Content), "rank: 2\n") {
		t.Errorf("a key written once is still set: %q, %v", r.Content, err)
	}
}

// TestPropertyValuesAsWritten: a value is written with its characters as
// themselves, emoji included (yaml.v3 wrote 🍎 as \U0001F34E), and reads
// back as it was set.
func TestPropertyValuesAsWritten(t *testing.T) {
	t.Parallel()
	r, err := SetProperty([]byte("# x\n"), "mood", Text, "🍎 ok")
	if err != nil || string(r.Content) != "---\nmood: 🍎 ok\n---\n# x\n" {
		t.Errorf("text: %q, %v", r.Content, err)
	}
	r, err = SetProperty([]byte("# x\n"), "moods", List, []string{"🌱", "yes", "true"})
	if err != nil || string(r.Content) != "---\nmoods:\n  - 🌱\n  - yes\n  - \"true\"\n---\n# x\n" {
		t.Errorf("list: %q, %v", r.Content, err)
	}
}
