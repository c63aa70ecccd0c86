package authserver

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOAuthCommand: `obsidian-mcp oauth` sets a passphrase (refusing a
// short one), lists no grant in a new store, refuses to revoke one it has
// not, and shows its usage for no or an unknown word.
func TestOAuthCommand(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "oauth.json")
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errs strings.Builder
		code := Command(append(args, "--oauth-store", store), func(string) string { return "" }, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errs})
		return code, out.String(), errs.String()
	}
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"short\n", []string{"passphrase"}, 2, "too short"},
		{"Tr0ub4dor&3\n", []string{"passphrase"}, 2, "too easy to guess (about 10^11 guesses; at least 10^14 are needed"},
		{"password123456\n", []string{"passphrase"}, 2, "too easy to guess"},
		{"", []string{"passphrase"}, 2, "no passphrase was given"},
		{"correct horse battery\n", []string{"passphrase"}, 0, "The passphrase is set"},
		{"", []string{"grants"}, 0, "No client is approved"},
		{"", []string{"revoke", "abcdef12"}, 1, `no grant "abcdef12"`},
		{"", []string{"revoke"}, 2, "Usage:"},
		{"", []string{"frobnicate"}, 2, "Usage:"},
		{"", []string{"--help"}, 0, "Usage:"},
	} {
		code, out, errs := run(c.stdin, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("oauth %v: exit %d, %q %q; want %d with %q", c.args, code, out, errs, c.code, c.want)
		}
	}
}
