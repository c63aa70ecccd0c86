package policy

import (
	"testing"
)

// FuzzPolicy: no glob list or ignore file makes parsing or matching panic;
// a decision never depends on the case of a letter (ASCII: which other
// letters the file systems of macOS and Windows take for one another is
// their own business); and a path inside a folder the
// configured rules hide is hidden too (a glob that matches a folder covers
// everything in it), so no child escapes by its own name.
func FuzzPolicy(f *testing.F) {
	f.Add("Private/**,*.secret.md", "Drafts/\n!Drafts/keep.md\n", "Private/a.md", "x.md")
	f.Add("{a,b}/**", "/Top.md\n\\#x\n", "A/Top.md", "c/d.md")
	f.Add("Journal", "secret/\n", "journal", "Secret/x")
	f.Fuzz(func(t *testing.T, list, ignore, dir, child string) {
		deny, err := ParseList("--deny-paths", list)
		if err != nil {
			return
		}
		rules, err := ParseIgnore([]byte(ignore))
		p := (&Policy{Deny: deny}).with(rules, err)
		for _, path := range []string{dir, dir + "/" + child} {
			if p.Hidden(path) != p.Hidden(asciiCase(path, 'a', 'z', 'A'-'a')) || p.Hidden(path) != p.Hidden(asciiCase(path, 'A', 'Z', 'a'-'A')) {
				t.Fatalf("Hidden(%q) depends on letter case", path)
			}
		}
		flags := &Policy{Deny: deny}
		if flags.Hidden(dir) && child != "" && !flags.Hidden(dir+"/"+child) {
			t.Fatalf("%q is hidden by %q but %q inside it is not", dir, list, dir+"/"+child)
		}
	})
}

// asciiCase shifts the ASCII letters from lo to hi by delta.
func asciiCase(s string, lo, hi byte, delta int) string {
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			b[i] = byte(int(c) + delta)
		}
	}
	return string(b)
}
