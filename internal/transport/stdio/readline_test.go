package stdio_test

import (
	"bufio"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
)

// TestReadLine: a line is long exactly when bytes of it were dropped,
// whether its end came in the reader's last chunk or a later one (a line
// just over the limit, ending in the same chunk, was once passed on cut
// and taken for whole); past the limit only its head is kept, and its
// length counted whole.
func TestReadLine(t *testing.T) {
	t.Parallel()
	const max = 20
	for _, tc := range []struct {
		name, in string
		head     int
		want     string
		long     bool
		size     int
	}{
		{"short", "abc\n", max, "abc", false, 3},
		{"exactly max", strings.Repeat("a", max) + "\r\n", max, strings.Repeat("a", max), false, max},
		{"one over, one chunk", strings.Repeat("b", max+1) + "\n", max, strings.Repeat("b", max), true, max + 1},
		{"many chunks", strings.Repeat("c", 100) + "\n", max, strings.Repeat("c", max), true, 100},
		{"no newline at the end", strings.Repeat("d", max+5), max, strings.Repeat("d", max), true, max + 5 + len("next")}, // the line goes on into "next"
		{"a head shorter than the limit", strings.Repeat("e", 100) + "\n", 5, "eeeee", true, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tc.in+"next\n"), 16) // 16: bufio's smallest
			line, size, _ := stdio.ReadLine(br, max, tc.head)
			if long := size > max; string(line) != tc.want || long != tc.long || size != tc.size {
				t.Errorf("ReadLine = %q, size %d, long %v; want %q, size %d, long %v", line, size, long, tc.want, tc.size, tc.long)
			}
			if next, _, _ := stdio.ReadLine(br, max, tc.head); strings.HasSuffix(tc.in, "\n") && string(next) != "next" {
				t.Errorf("the line after it = %q, want %q", next, "next")
			}
		})
	}
}
