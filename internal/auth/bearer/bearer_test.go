package bearer

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/auth"
	"github.com/obsidian-mcp/obsidian-mcp/internal/auth/oauth"
)

type checker map[string]oauth.Access

func (c checker) Check(_ context.Context, token string) (oauth.Access, error) {
	if a, ok := c[token]; ok {
		return a, nil
	}
	return oauth.Access{}, oauth.Invalid("unknown")
}

type key string

func (k key) Set() bool { return k != "" }
func (k key) Allows(r *http.Request) (bool, bool) {
	got, presented := Presented(r)
	return presented && got == string(k), presented
}

// TestAuthorizeNamesTheClient: what a request's credentials were travels
// with it for the change record (auth.Who), beside what they grant
// (auth.Limit, through the guard).
func TestAuthorizeNamesTheClient(t *testing.T) {
	t.Parallel()
	v := &Verifier{Resource: oauth.Resource{URL: "http://127.0.0.1/mcp", AuthServers: []string{"https://id.example"}, Scopes: oauth.Scopes},
		Checker: checker{"rw": {ClientID: "claude", Scopes: []string{oauth.ScopeWrite}}, "ro": {ClientID: "reader", Scopes: []string{oauth.ScopeRead}}}}
	writes := auth.Guard{Writes: auth.Writing}
	for _, c := range []struct {
		bearer, who string
		limited     bool
	}{
		{"rw", "OAuth client claude", false},
		{"ro", "OAuth client reader", true},
		{"the-api-key-0123456789", "the API key", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+c.bearer)
		got, refused := v.Authorize(r, key("the-api-key-0123456789"), slog.New(slog.DiscardHandler))
		if refused != nil {
			t.Fatalf("%s: refused %+v", c.bearer, refused)
		}
		if who := auth.Who(got.Context()); who != c.who {
			t.Errorf("%s: named %q, want %q", c.bearer, who, c.who)
		}
		if limited := writes.Check(got.Context(), "x") != nil; limited != c.limited {
			t.Errorf("%s: limited %v, want %v", c.bearer, limited, c.limited)
		}
	}
}
