package bases

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostileBasesAreRefused: expressions and files shaped to exhaust the
// stack, memory or time are refused with an error naming the bound; none
// crashes (a million nested parentheses ended the process with a fatal
// stack overflow, (1.5).toFixed(5000000000) ran it out of memory).
func TestHostileBasesAreRefused(t *testing.T) {
	for name, src := range map[string]string{
		"a million parentheses":      strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000),
		"parentheses past the depth": strings.Repeat("(", maxDepth+1) + "1" + strings.Repeat(")", maxDepth+1),
		"a million !":                strings.Repeat("!", 1_000_000) + "x",
		"nots past the depth":        strings.Repeat("!", maxDepth+1) + "x",
		"minuses past the depth":     strings.Repeat("-", maxDepth+1) + "1",
		"calls past the depth":       strings.Repeat("max(", maxDepth+1) + "1" + strings.Repeat(")", maxDepth+1),
	} {
		_, err := parse(src)
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: %v, want a refusal naming the bound", name, err)
		}
	}
	if _, err := parse(strings.Repeat("(", maxDepth-2) + "1" + strings.Repeat(")", maxDepth-2)); err != nil {
		t.Errorf("nesting within the bound: %v", err)
	}
	f := &File{Path: "a.md"}
	for name, src := range map[string]string{
		"toFixed of five billion digits": `(1.5).toFixed(5000000000)`,
		"round of five billion digits":   `(1.5).round(5000000000)`,
		"negative digits":                `(1.5).toFixed(-1)`,
	} {
		n, err := parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&env{f: f, now: now, done: map[string]any{}, busy: map[string]bool{}}).eval(n); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	// Text doubled through 40 formulas would be a terabyte; lists too.
	for _, double := range []string{`formula.f%d + formula.f%d`, `[formula.f%d, formula.f%d].flat()`} {
		var b strings.Builder
		b.WriteString("formulas:\n  f0: '\"xxxxxxxx\"'\n")
		if strings.Contains(double, "flat") {
			b.Reset()
			b.WriteString("formulas:\n  f0: '[1, 2, 3, 4]'\n")
		}
		for i := 1; i <= 40; i++ {
			fmt.Fprintf(&b, "  f%d: '%s'\n", i, fmt.Sprintf(double, i-1, i-1))
		}
		b.WriteString("views: [{type: table, name: T, order: [formula.f40]}]\n")
		base, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := base.Query(t.Context(), "", []File{*f}, now); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s doubled 40 times: %v, want a refusal", double, err)
		}
	}
	// A chain of formulas past maxFormulaChain.
	var b strings.Builder
	b.WriteString("formulas:\n")
	for i := range maxFormulaChain + 5 {
		fmt.Fprintf(&b, "  f%d: 'formula.f%d'\n", i, i+1)
	}
	fmt.Fprintf(&b, "  f%d: '1'\nviews: [{type: table, name: T, order: [formula.f0]}]\n", maxFormulaChain+5)
	base, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := base.Query(t.Context(), "", []File{*f}, now); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a chain of %d formulas: %v, want a refusal", maxFormulaChain+5, err)
	}
	if _, err := Parse(make([]byte, MaxFileSize+1)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a base over MaxFileSize: %v", err)
	}
}
