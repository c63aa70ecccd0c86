package prompts

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFromNote(t *testing.T) {
	const review = "---\ntags: [mcp-prompt/writing]\ndescription: Review a draft\narguments:\n  tone: the tone to aim for\n---\n" +
		"Review {{ draft }} for {{audience}} in a {{tone}} tone, on {{date}} ({{title}}). Again: {{draft}}. {{ not a placeholder }}\n"
	p, ok := FromNote("Prompts/Review.md", []byte(review))
	if !ok {
		t.Fatal("a tagged note is not a prompt")
	}
	want := []Arg{{Name: "tone", Description: "the tone to aim for"}, {Name: "draft"}, {Name: "audience"}}
	if p.Name != "Review" || p.Description != "Review a draft" || !reflect.DeepEqual(p.Args, want) {
		t.Errorf("prompt %+v", p)
	}
	now := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	got, err := p.Fill(map[string]string{"draft": "X", "audience": "kids", "tone": "warm"}, now)
	if want := "Review X for kids in a warm tone, on 2026-11-26 (Review). Again: X. {{ not a placeholder }}"; err != nil || got != want {
		t.Errorf("filled %q, %v\nwant %q", got, err, want)
	}
	if _, err := p.Fill(map[string]string{"draft": "X"}, now); err == nil || !strings.Contains(err.Error(), "needs the argument(s) tone, audience") {
		t.Errorf("missing arguments: %v", err)
	}
	if _, ok := FromNote("A.md", []byte("#mcp-prompts is another tag\n")); ok {
		t.Error("a note without the tag is a prompt")
	}
	if p, ok := FromNote("B.md", []byte("Inline #mcp-prompt: say {{x}}\n")); !ok || len(p.Args) != 1 {
		t.Errorf("an inline tag: %+v %v", p, ok)
	}
}

func TestNamed(t *testing.T) {
	ps := Named([]Prompt{{Name: "Plan", Path: "A/Plan.md"}, {Name: "plan", Path: "B/plan.md"}, {Name: "Zed", Path: "Zed.md"}})
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, []string{"A/Plan", "B/plan", "Zed"}) {
		t.Errorf("names %v", names)
	}
}

// TestArgumentsInTheNotesOrder: declared arguments come in the order the
// note writes them (they came back alphabetical), then the placeholders'
// in the order the body uses them.
func TestArgumentsInTheNotesOrder(t *testing.T) {
	const note = "---\ntags: [mcp-prompt]\narguments:\n  zeta: last letter\n  alpha: first letter\n  mid:\n---\nUse {{zeta}}, {{alpha}}, {{mid}} and {{extra}}.\n"
	p, ok := FromNote("P.md", []byte(note))
	var names []string
	for _, a := range p.Args {
		names = append(names, a.Name)
	}
	if !ok || strings.Join(names, ",") != "zeta,alpha,mid,extra" || p.Args[0].Description != "last letter" {
		t.Errorf("arguments %+v", p.Args)
	}
}
