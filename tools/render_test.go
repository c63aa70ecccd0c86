package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

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

// TestRenderReadsBackAsTheData: for values of every shape, holding text
// in every script, emoji, quotes, YAML's indicators, words that read as
// other types, control characters and lines of every kind, the text block
// parses back (yaml.v3) as the same data, and writes every character that
// needs no escape as itself: no \U escape anywhere.
func TestRenderReadsBackAsTheData(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 39))
	for i := range 3000 {
		v := randomValue(rng, 3)
		checkRender(t, fmt.Sprintf("value %d", i), map[string]any{"a": v, "b": []any{v, "x"}})
	}
}

// FuzzRender: any string, as a field, an element and a key, reads back as
// itself.
func FuzzRender(f *testing.F) {
	for _, s := range renderPieces {
		f.Add(s)
	}
	f.Add("- [ ] Buy 🍎 📅 2026-11-02\n\t- [x] done ✅ 2026-11-01\r\n")
	f.Add(`a \U0001F34E spelled out, \\U too`)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // JSON carries valid UTF-8 only; encoding/json replaces the rest first
		}
		checkRender(t, fmt.Sprintf("%.200q", s), map[string]any{"s": s, "list": []any{s, s}, "map": map[string]any{s: s}})
	})
}

// renderPieces are what random strings are made of.
var renderPieces = []string{
	"a", "note", "Inbox/Idea.md", " ", "  ", "\n", "\n\n", "\r\n", "\r", "\t", ": ", ":", "#", " #", "-", "- ", "? ",
	"'", "\"", "\\", "[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "%", "@", "`", "---", "...", "~",
	"true", "no", "On", "null", "0123", "1:20", "-5", "3.5e2", ".inf", "0x1F", "2026-01-25", "2026-01-25T10:00:00Z",
	"🍎", "📅", "✅", "⏳", "🔁", "ノート", "データ", "笔记", "é", "ß", "Привет", "שלום", "مرحبا", "ไทย", "한국어",
	"\x00", "\x07", "\x1b", "\x7f", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "\ufffd", "\uffff", "\U0010FFFF",
}

func randomString(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(renderPieces[rng.IntN(len(renderPieces))])
	}
	return b.String()
}

func randomValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth == 0 {
		k = rng.IntN(4)
	}
	switch k {
	case 0, 1:
		return randomString(rng)
	case 2:
		return rng.IntN(2000) - 1000
	case 3:
		return []any{true, false, nil, 1.5}[rng.IntN(4)]
	case 4:
		var out []any
		for range rng.IntN(4) {
			out = append(out, randomValue(rng, depth-1))
		}
		return out
	default:
		out := map[string]any{}
		for range rng.IntN(4) {
			out[randomString(rng)] = randomValue(rng, depth-1)
		}
		return out
	}
}

// checkRender renders v and compares what yaml.v3 reads back with v's
// JSON, a carriage return before a line feed dropped on both sides (a
// block shows lines; the structured content keeps the bytes).
func checkRender(t *testing.T, name string, v any) {
	t.Helper()
	text, err := render(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var back any
	if err := yaml.Unmarshal([]byte(text), &back); err != nil {
		t.Fatalf("%.200s: the text block is not YAML: %v\n%.4000s", name, err, text)
	}
	if got, want := sameJSON(t, back), sameJSON(t, v); got != want {
		t.Fatalf("%s: reads back as\n%.2000s\nwant\n%.2000s\ntext block:\n%.4000s", name, got, want, text)
	}
	// The renderer writes no \U escape, so a \U in the block is one the
	// data spelled out itself (as text, or as \\U inside double quotes).
	if got, own := strings.Count(text, `\U`), countEscapeLike(v); got > own {
		t.Fatalf("%s: an escape where the character can stand as itself (%d \\U, the data has %d):\n%s", name, got, own, text)
	}
}

// countEscapeLike counts the letters \U the strings in v spell out,
// keys included.
func countEscapeLike(v any) int {
	switch v := v.(type) {
	case string:
		return strings.Count(v, `\U`)
	case []any:
		n := 0
		for _, e := range v {
			n += countEscapeLike(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range v {
			n += countEscapeLike(k) + countEscapeLike(e)
		}
		return n
	}
	return 0
}

// sameJSON is v as canonical JSON, CRLF as LF in its strings.
func sameJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var canon any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&canon); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(canon)
	return strings.ReplaceAll(string(out), `\r\n`, `\n`)
}
