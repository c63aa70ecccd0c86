package bases

import (
	"strings"
	"testing"
)

// FuzzBase: any .base file, however shaped, is read and queried to an
// answer or an error, never a crash, a hang or a value past the bounds
// (bounds.go). The seeds hold the shapes that once crashed the process.
func FuzzBase(f *testing.F) {
	f.Add([]byte(books))
	f.Add([]byte("formulas:\n  a: '" + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + "'\nviews: [{type: table, name: T, order: [formula.a]}]\n"))
	f.Add([]byte("formulas:\n  a: '" + strings.Repeat("!", 300) + "x'\nviews: [{type: table, name: T, order: [formula.a]}]\n"))
	f.Add([]byte("formulas:\n  a: '(1.5).toFixed(5000000000)'\nviews: [{type: table, name: T, order: [formula.a]}]\n"))
	f.Add([]byte("formulas:\n  a: '\"xx\"'\n  b: 'formula.a + formula.a'\n  c: 'formula.b + formula.b'\n  d: '[formula.c, formula.c].flat()'\nviews: [{type: table, name: T, order: [formula.d]}]\n"))
	f.Add([]byte("formulas:\n  a: 'formula.b'\n  b: 'formula.a'\nviews: [{type: table, name: T, order: [formula.a]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(data)
		if err != nil {
			return
		}
		res, err := b.Query(t.Context(), "", shelf, now)
		if err != nil {
			return
		}
		for _, r := range res.Rows {
			for k, v := range r.Values {
				if valueSize(v, maxValueSize) > maxValueSize {
					t.Errorf("%s: a value past the bound", k)
				}
			}
		}
	})
}
