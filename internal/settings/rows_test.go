package settings

import "testing"

// TestQuoted: a rejected value is shown as typed, a Windows path with its
// single backslashes; one with quotes or control characters is escaped.
func TestQuoted(t *testing.T) {
	for v, want := range map[string]string{
		`C:\Users\me\Vault`: `"C:\Users\me\Vault"`,
		"My Vault":          `"My Vault"`,
		`say "hi"`:          `"say \"hi\""`,
		"a\nb":              `"a\nb"`,
	} {
		if got := quoted(v); got != want {
			t.Errorf("quoted(%q) = %s, want %s", v, got, want)
		}
	}
}
