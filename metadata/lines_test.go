package metadata

import "testing"

func TestLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text   string
		count  int
		starts []int // Start(1..count+1)
	}{
		{"", 1, []int{0, 0}},
		{"a", 1, []int{0, 1}},
		{"a\n", 1, []int{0, 2}},
		{"a\nb", 2, []int{0, 2, 3}},
		{"a\r\nb\r\n", 2, []int{0, 3, 6}},
		{"\n\n", 2, []int{0, 1, 2}},
	}
	for _, c := range cases {
		l := LinesOf(c.text)
		if l.Count() != c.count {
			t.Errorf("%q: %d lines, want %d", c.text, l.Count(), c.count)
		}
		for n, want := range c.starts {
			if got := l.Start(n + 1); got != want {
				t.Errorf("%q: Start(%d) = %d, want %d", c.text, n+1, got, want)
			}
		}
		for off := 0; off < len(c.text); off++ {
			if n := l.Of(off); l.Start(n) > off || l.Start(n+1) <= off && n < len(c.starts)-1 {
				t.Errorf("%q: Of(%d) = %d", c.text, off, n)
			}
		}
		if l.Start(0) != 0 {
			t.Errorf("%q: Start(0) = %d", c.text, l.Start(0))
		}
	}
}
