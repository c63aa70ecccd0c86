package bases

import "fmt"

// A .base file is vault content: anyone who can write a note can write
// one, a client through obsidian_create_note included. Every part of
// reading and evaluating it is bounded, so that no file makes the server
// run out of stack, memory or time; a file past a bound is refused with
// an error naming it. (Before, a formula nesting a million parentheses
// ended the process with a fatal stack overflow, and
// (1.5).toFixed(5000000000) ran it out of memory.)
const (
	// MaxFileSize bounds a .base file.
	MaxFileSize = 1 << 20
	// maxExprLen bounds one expression's text.
	maxExprLen = 16 << 10
	// maxDepth bounds how deeply an expression nests (parentheses,
	// operators, calls, ! and -).
	maxDepth = 100
	// maxFormulaChain bounds how many formulas may be under evaluation at
	// once (formula.a using formula.b using ...).
	maxFormulaChain = 64
	// maxValueSize bounds a value a formula computes: a text's bytes, or
	// a list's items counted through nested lists.
	maxValueSize = 1 << 20
	// maxDigits is the most digits toFixed and round take, as in
	// JavaScript (which throws a RangeError past 100).
	maxDigits = 100
)

// errBound is a base over one of the bounds above.
func errBound(format string, args ...any) error {
	return fmt.Errorf("refused: "+format, args...)
}

// valueSize measures v as maxValueSize counts, stopping once it is past
// limit (so that a list sharing itself many times over costs no more).
func valueSize(v any, limit int) int {
	var items []any
	switch v := v.(type) {
	case string:
		return len(v)
	case []any:
		items = v
	case map[string]any:
		items = make([]any, 0, min(len(v), limit+1))
		for _, x := range v {
			if len(items) > limit {
				break
			}
			items = append(items, x)
		}
	default:
		return 1
	}
	n := len(items)
	for _, x := range items {
		if n > limit {
			break
		}
		n += valueSize(x, limit-n)
	}
	return n
}

// checkSize refuses a value past maxValueSize.
func checkSize(v any) error {
	if valueSize(v, maxValueSize) > maxValueSize {
		return errBound("a formula's value grew past %d bytes or items (limit of a computed value)", maxValueSize)
	}
	return nil
}
