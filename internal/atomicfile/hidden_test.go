package atomicfile

import "testing"

// TestHolds: a note holds a hidden save when it has every line the save
// added to what stood at the name, as often; other lines do not matter.
func TestHolds(t *testing.T) {
	base := "a\nours\n"
	version := "a\nours\n\nfirst save\n"
	for _, c := range []struct {
		now  string
		want bool
	}{
		{"a\nours\n\nfirst save\n", true},
		{"a\nours\n\nfirst save\n\nsecond save\n", true},
		{"x\n\nfirst save\n", true},                   // other lines changed: not ours to judge
		{"a\nours\n\nsecond save\n", false},           // built on ours: the save is gone
		{"a\nours\nfirst save\n", false},              // its blank line too
		{"a\nours\n", false},                          // back to ours
		{"", false},                                   // emptied
		{"first save\n\na\nours\nfirst save\n", true}, // twice is at least once
	} {
		if got := holds([]byte(c.now), []byte(base), []byte(version)); got != c.want {
			t.Errorf("holds(%q) = %v, want %v", c.now, got, c.want)
		}
	}
	if !holds([]byte("anything\n"), []byte(base), []byte(base)) {
		t.Error("a version that adds nothing is held by any note")
	}
}
