package mcphttp

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidSessionID: the loop takes what the pattern it replaced takes.
func TestValidSessionID(t *testing.T) {
	t.Parallel()
	pattern := regexp.MustCompile(`^[A-Za-z0-9._~-]{1,128}$`)
	for _, id := range []string{"", "a", "0123456789abcdef0123456789abcdef", "a.b_c~d-e", strings.Repeat("x", 128),
		strings.Repeat("x", 129), "a b", "a/b", "é", "a\n", "A%20", "ab?c"} {
		if got, want := validSessionID(id), pattern.MatchString(id); got != want {
			t.Errorf("validSessionID(%q) = %v, the pattern says %v", id, got, want)
		}
	}
}
