package vaultserver

import "testing"

func TestAtLeast(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"1.12.7 (installer 1.12.7)": true, "1.13.0": true, "2.0.1": true, "1.11.9 (installer 1.11.9)": false,
		"0.15.9": false, "": false, "garbage": false, "1.x": false,
	} {
		if got := atLeast(v, [2]int{1, 12}); got != want {
			t.Errorf("atLeast(%q) = %v, want %v", v, got, want)
		}
	}
}
