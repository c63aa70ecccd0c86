package metadata

import "sort"

// Lines knows where each line of a text starts, for turning between byte
// offsets and 1-based line numbers. A final newline does not start a line.
type Lines struct {
	starts []int
	size   int
}

// LinesOf indexes the lines of text.
func LinesOf[T ~string | ~[]byte](text T) Lines {
	l := Lines{starts: []int{0}, size: len(text)}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// Count is the number of lines; an empty text has one, as in an editor.
func (l Lines) Count() int {
	if l.size > 0 && l.starts[len(l.starts)-1] == l.size {
		return len(l.starts) - 1
	}
	return len(l.starts)
}

// Start is where line n starts; before the first line 0, past the last
// the text's end.
func (l Lines) Start(n int) int {
	switch {
	case n < 1:
		return 0
	case n > len(l.starts):
		return l.size
	}
	return l.starts[n-1]
}

// Of is the line holding byte offset off.
func (l Lines) Of(off int) int {
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off })
}
