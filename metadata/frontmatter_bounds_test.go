package metadata

import (
	"fmt"
	"strings"
	"testing"
)

// TestFrontmatterBounds: a frontmatter of anchors and aliases that would
// expand to a billion values, and one over MaxFrontmatter, are reported
// as not read, at once, instead of being expanded.
func TestFrontmatterBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("---\nbody\n")
	n := Parse([]byte(b.String()))
	if !strings.Contains(n.FrontmatterError, "aliases") || len(n.Properties) != 0 {
		t.Errorf("alias bomb: error %q, %d properties", n.FrontmatterError, len(n.Properties))
	}
	big := "---\nk: " + strings.Repeat("v", MaxFrontmatter) + "\n---\n"
	if n := Parse([]byte(big)); !strings.Contains(n.FrontmatterError, "over the limit") {
		t.Errorf("big frontmatter: error %q", n.FrontmatterError)
	}
	if n := Parse([]byte("---\na: &x [1, 2]\nb: *x\n---\n")); n.FrontmatterError != "" || len(n.Properties) != 2 {
		t.Errorf("ordinary aliases: %q, %+v", n.FrontmatterError, n.Properties)
	}
}
