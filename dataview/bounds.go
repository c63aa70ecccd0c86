package dataview

import "fmt"

// A query is vault content too (a note's dataview block) or a client's
// argument: its text and nesting are bounded before it is parsed, so
// that no query makes the parser recurse without end.
const (
	// MaxQuery bounds a query's text.
	MaxQuery = 16 << 10
	// maxNesting bounds how deeply brackets and ! nest.
	maxNesting = 100
)

// BoundError is a query over a bound.
type BoundError struct{ Msg string }

func (e *BoundError) Error() string { return e.Msg }

// checkBounds refuses a query too long or too deeply nested.
func checkBounds(text string) error {
	if len(text) > MaxQuery {
		return &BoundError{fmt.Sprintf("the query is %d bytes, over the limit of %d", len(text), MaxQuery)}
	}
	depth, bangs, inString := 0, 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if c == '!' {
			bangs++
		} else if c != ' ' {
			bangs = 0
		}
		if depth > maxNesting || bangs > maxNesting {
			return &BoundError{fmt.Sprintf("the query nests more than %d deep (brackets or !): write it flatter", maxNesting)}
		}
	}
	return nil
}
