package note

import (
	"strings"
	"testing"
)

// TestWindowsSegments: the parts of a path that cannot name a file on
// Windows are refused there by CheckPath (checkSegments), each with its
// reason; on other systems they are names like any other.
func TestWindowsSegments(t *testing.T) {
	for _, tc := range []struct{ seg, want string }{
		{"Notes", ""},
		{"Plan.md", ""},
		{"CON.md", "a device (CON)"},
		{"aux.txt.md", "a device (AUX)"},
		{"lpt1", "a device (LPT1)"},
		{"CONSOLE.md", ""},
		{"a?.md", "must not contain '?'"},
		{"a:b.md", "must not contain ':'"},
		{"ends.", "must not end with '.'"},
		{"ends ", "must not end with '.' or a space"},
	} {
		got := checkWindowsSegment(tc.seg)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("checkWindowsSegment(%q) = %q, want %q", tc.seg, got, tc.want)
		}
		if onWindows && (CheckPath("Folder/"+tc.seg) == "") != (tc.want == "") {
			t.Errorf("CheckPath(%q) = %q on Windows", "Folder/"+tc.seg, CheckPath("Folder/"+tc.seg))
		}
	}
}
